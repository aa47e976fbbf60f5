// Bundles the CLI so start-up does not pay for loading hundreds of modules: the entry holds only
// the command line; each subcommand's code is a chunk loaded when that subcommand runs.
import { rmSync } from "node:fs";
import { build } from "esbuild";
import "./generate-protocol-list.mjs";

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: ["src/cli/main.ts"],
  outdir: "dist",
  entryNames: "clio",
  chunkNames: "chunks/[name]-[hash]",
  splitting: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: false,
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  banner: {
    js: [
      "#!/usr/bin/env node",
      "import { createRequire as __clioCreateRequire } from 'node:module';",
      "const require = __clioCreateRequire(import.meta.url);",
    ].join("\n"),
  },
});
