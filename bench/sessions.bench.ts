/**
 * Session saving: every record appends one line to the session's journal, so its cost should
 * not grow with the session. Measured side by side in one run:
 * - the cost of one append when the session already holds 10, 100, 500 and 1,000 turns
 *   (a turn: prompt, reply, two commands with 2 KB outputs, usage — about 5 KB);
 * - the floor: a plain `fs.appendFile` of a line of the same size to a file of the same size;
 * - `list` over 200 sessions and `open` of the 1,000-turn one (target ≤ 100 ms).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { appendFile, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Session, SessionStore } from "../src/sessions/index.js";
import { format, median, printTable, seededRandom, time } from "./support.js";

const folder = mkdtempSync(path.join(os.tmpdir(), "clio-sessions-bench-"));
const random = seededRandom(11);
const words = ["read", "the", "parser", "file", "test", "fails", "because", "module", "config", "value", "returns", "error"];
const sentence = (length: number): string => {
  let text = "";
  while (text.length < length) text += `${words[Math.floor(random() * words.length)]} `;
  return text.slice(0, length);
};

/** Appends one turn's records; returns the time of each append in ms. */
async function appendTurn(session: Session, turn: number): Promise<number[]> {
  const times: number[] = [];
  times.push(await time(() => session.appendMessage({ role: "user", content: sentence(200), turn })));
  times.push(await time(() => session.appendMessage({ role: "assistant", content: sentence(800), turn })));
  for (let index = 0; index < 2; index++) {
    times.push(
      await time(() =>
        session.appendCommand({
          protocol: "FILE_OP",
          action: "read",
          args: { path: `src/file${index}.ts` },
          description: "Reading",
          ok: true,
          output: sentence(2000),
          durationMs: 3,
          turn,
        }),
      ),
    );
  }
  times.push(await time(() => session.addUsage({ turn, inputTokens: 1000 + turn, outputTokens: 200 })));
  return times;
}

/**
 * Grows one session per store to each size in `checkpoints`, turn by turn in step (so both see
 * the same machine load), measuring 5 turns' appends at each checkpoint.
 */
async function measureGrowth(stores: SessionStore[], checkpoints: number[]): Promise<{ sessions: Session[]; perAppend: Map<number, number>[] }> {
  const sessions = await Promise.all(stores.map((store) => store.create({ workspace: folder, provider: "bench", model: "bench" })));
  const perAppend = stores.map(() => new Map<number, number>());
  let turn = 0;
  for (const checkpoint of checkpoints) {
    while (turn < checkpoint) {
      turn++;
      for (const session of sessions) await appendTurn(session, turn);
    }
    const samples: number[][] = stores.map(() => []);
    for (let extra = 0; extra < 5; extra++) {
      turn++;
      for (const [index, session] of sessions.entries()) samples[index]!.push(...(await appendTurn(session, turn)));
    }
    for (const [index, map] of perAppend.entries()) map.set(checkpoint, median(samples[index]!));
  }
  return { sessions, perAppend };
}

const checkpoints = [10, 100, 500, 1000];
// The floor writes the same bytes with a bare appendFile: the session writer with nothing on top.
const plainWriter = { openWriter: (file: string) => ({ append: (text: string) => appendFile(file, text, "utf8"), truncate: async () => {} }) };
const growth = await measureGrowth([new SessionStore(path.join(folder, "journal")), new SessionStore(path.join(folder, "plain"), plainWriter)], checkpoints);
const [journalSession, plainSession] = growth.sessions as [Session, Session];
const [journalCosts, plainCosts] = growth.perAppend as [Map<number, number>, Map<number, number>];
const largestFile = journalSession.file;
const largestBytes = (await stat(largestFile)).size;
const largestId = journalSession.id;
await journalSession.close();
await plainSession.close();

const listStore = new SessionStore(path.join(folder, "many"));
for (let index = 0; index < 200; index++) {
  const session = await listStore.create({ workspace: folder, provider: "bench", model: "bench" });
  for (let turn = 1; turn <= 4; turn++) await appendTurn(session, turn);
  await session.close();
}
const listTimes: number[] = [];
for (let round = 0; round < 5; round++) listTimes.push(await time(() => listStore.list()));
const journalStore = new SessionStore(path.dirname(largestFile));
const openTimes: number[] = [];
for (let round = 0; round < 5; round++) {
  openTimes.push(
    await time(async () => {
      const session = await journalStore.open(largestId);
      await session.close();
    }),
  );
}

const small = journalCosts.get(10)!;
process.stdout.write("sessions: save-per-append cost (median ms per append)\n");
printTable([
  ...checkpoints.map((size): [string, string] => [
    `append at ${size} turns`,
    `journal ${format(journalCosts.get(size)!, 3)} ms (${format(journalCosts.get(size)! / small, 2)}× the 10-turn cost); plain appendFile ${format(plainCosts.get(size)!, 3)} ms; journal/plain ${format(journalCosts.get(size)! / plainCosts.get(size)!, 2)}×`,
  ]),
  ["largest session file", `${format(largestBytes / 1024 / 1024, 2)} MiB (${checkpoints.at(-1)! + 5 * checkpoints.length} turns)`],
  ["list 200 sessions (4 turns each)", `${format(median(listTimes), 1)} ms`],
  ["open the largest session", `${format(median(openTimes), 1)} ms (target ≤ 100 ms)`],
]);
rmSync(folder, { recursive: true, force: true });
