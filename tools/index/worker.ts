/**
 * The entry of an index worker thread: reads and analyses the files it is sent, with a term
 * dictionary of its own (started afresh between batches once it grows large). Each reply carries
 * the terms the dictionary gained since the last one, as one run of bytes, so the main thread can
 * name the worker's term ids.
 */
import { parentPort } from "node:worker_threads";
import { FileReader, readAndAnalyse } from "./file-record.js";
import type { WorkerOutcome, WorkerReply, WorkerTask } from "./parallel.js";
import { TermDictionary } from "./store.js";
import { TermCounter } from "./term-counter.js";
import { termRunOf } from "./term-list.js";
import { writableOf } from "./writable-file.js";

const port = parentPort;
if (port === null) throw new Error("tools/index/worker runs only as a worker thread.");

const dictionary = new TermDictionary();
const counter = new TermCounter(dictionary);
let termsSent = 0;
const reader = new FileReader();

port.on("message", (task: WorkerTask) => {
  const reset = counter.crowded;
  if (reset) {
    // The main thread has its own copy of the terms sent, so this thread's tables are emptied and kept.
    dictionary.clear();
    counter.restart(dictionary);
    termsSent = 0;
  }
  const transfer: ArrayBuffer[] = [];
  const outcomes = readAndAnalyse(task.files, counter, reader, { maxLines: task.maxChunkLines }).map((outcome): WorkerOutcome => {
    if (outcome.kind !== "record") return outcome;
    const record = writableOf(outcome.record);
    transfer.push(record.numbers.buffer as ArrayBuffer, record.meta.buffer as ArrayBuffer);
    return { kind: "record", record };
  });
  const terms = termRunOf(dictionary, termsSent);
  transfer.push(terms.bytes.buffer as ArrayBuffer, terms.ends.buffer as ArrayBuffer);
  const reply: WorkerReply = { start: task.start, reset, terms, outcomes };
  termsSent = dictionary.count;
  port.postMessage(reply, transfer);
});
