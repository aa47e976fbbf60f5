/**
 * The entry of an index worker thread: reads and analyses the files it is sent, with a term
 * dictionary of its own. Each reply carries the terms the dictionary gained since the last one,
 * so the main thread can map the worker's term ids onto the index's.
 */
import { readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { analyseBytes, type FileOutcome } from "./file-record.js";
import { TermDictionary } from "./store.js";
import { TermCounter } from "./term-counter.js";
import type { WorkerReply, WorkerTask } from "./parallel.js";

const port = parentPort;
if (port === null) throw new Error("tools/index/worker runs only as a worker thread.");

const dictionary = new TermDictionary();
const counter = new TermCounter(dictionary);
let termsSent = 0;

port.on("message", (task: WorkerTask) => {
  const outcomes: FileOutcome[] = task.files.map((file) => {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file.absolute);
    } catch (error) {
      return { kind: "unreadable", message: (error as Error).message };
    }
    return analyseBytes(file, bytes, counter, { maxLines: task.maxChunkLines });
  });
  const transfer: ArrayBuffer[] = [];
  for (const outcome of outcomes) {
    const first = outcome.kind === "record" ? outcome.record.chunks[0] : undefined;
    if (first !== undefined) transfer.push(first.terms.buffer as ArrayBuffer);
  }
  const reply: WorkerReply = { start: task.start, terms: dictionary.terms.slice(termsSent), outcomes };
  termsSent = dictionary.size;
  port.postMessage(reply, transfer);
});
