/**
 * State that must be one per process although the module holding it is bundled more than once:
 * the CommonJS entry (dist/clio.cjs), the cached command scripts and the ES-module chunks its
 * subcommands load each carry their own copy of a module such as src/log.ts (scripts/build.mjs,
 * scripts/cached-scripts.mjs). Kept under a registered symbol, every copy reads and writes the
 * same object.
 */
export function processState<State extends object>(name: string, initial: () => State): State {
  const holder = globalThis as Record<symbol, unknown>;
  const key = Symbol.for(`clio.${name}`);
  holder[key] ??= initial();
  return holder[key] as State;
}
