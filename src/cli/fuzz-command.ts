/** `clio fuzz`: property checks of the grammar and of every protocol (see docs/fuzzing.md). */

export interface FuzzCommandOptions {
  runs?: number;
  seed?: number;
  target: "grammar" | "protocols" | "all";
  protocol?: string;
}

export async function fuzzCommand(_options: FuzzCommandOptions): Promise<number> {
  process.stderr.write("clio fuzz: not built yet.\n");
  return 2;
}
