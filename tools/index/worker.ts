/**
 * The entry of an index worker thread: reads and analyses the files it is sent, with a term
 * dictionary of its own. Each reply carries the terms the dictionary gained since the last one,
 * so the main thread can map the worker's term ids onto the index's.
 */
import { parentPort } from "node:worker_threads";
import { readAndAnalyse } from "./file-record.js";
import { partsOf, TermDictionary } from "./store.js";
import { TermCounter } from "./term-counter.js";
import type { WorkerOutcome, WorkerReply, WorkerTask } from "./parallel.js";

const port = parentPort;
if (port === null) throw new Error("tools/index/worker runs only as a worker thread.");

const dictionary = new TermDictionary();
const counter = new TermCounter(dictionary);
let termsSent = 0;

port.on("message", (task: WorkerTask) => {
  const transfer: ArrayBuffer[] = [];
  const outcomes = readAndAnalyse(task.files, counter, { maxLines: task.maxChunkLines }).map((outcome): WorkerOutcome => {
    if (outcome.kind !== "record") return outcome;
    transfer.push(outcome.record.numbers.buffer as ArrayBuffer);
    return { kind: "parts", parts: partsOf(outcome.record) };
  });
  const reply: WorkerReply = { start: task.start, terms: dictionary.terms.slice(termsSent), outcomes };
  termsSent = dictionary.size;
  port.postMessage(reply, transfer);
});
