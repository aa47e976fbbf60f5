/** Regenerates the protocol list so tests always see every file in protocols/. */
export default async function setup(): Promise<void> {
  // @ts-expect-error — a plain .mjs build script without type declarations
  await import("../../scripts/generate-protocol-list.mjs");
}
