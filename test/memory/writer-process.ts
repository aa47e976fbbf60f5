/**
 * A second clio process for the concurrency test: stores `count` memories named
 * `<prefix>-<n>` into the project scope of `workspace`, then exits.
 * Usage: node --import tsx test/memory/writer-process.ts WORKSPACE HOME PREFIX COUNT
 */
import { MemoryStore } from "../../tools/memory/store.js";

const [workspaceRoot, home, prefix, count] = process.argv.slice(2) as [string, string, string, string];
const store = new MemoryStore({ workspaceRoot, home });
for (let index = 0; index < Number(count); index++) {
  await store.store({ key: `${prefix}-${index}`, value: `value ${index} from ${prefix}`, tags: prefix });
}
