import { Command } from "commander";
import { version } from "../version.js";

const program = new Command("clio").version(version, "-v, --version").description("A protocol-first terminal coding assistant.");
await program.parseAsync(process.argv);
