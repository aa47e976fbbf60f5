/**
 * Inflating the many small zlib streams of a pack with one native zlib handle, reset between
 * streams. node's `inflateSync` builds a whole stream object (a Transform with its native handle)
 * for every call, which costs more than the inflating itself for the few hundred bytes a pack
 * entry of source code holds: over the 10,766 entries of a gc'd 400-commit pack, 2.5–3.3 µs an
 * entry against 4.5–6.5 µs, and about a third of its time the first time through. The handle is
 * the one node's own `zlib.Inflate` holds, driven with the calls node's `inflateSync` makes
 * (`reset`, `writeSync`, the two-number write state). A new handle must first inflate a known
 * stream exactly; when this node does not have those calls, the handle fails, or anything about
 * a stream is not exactly as expected (an error, a size other than the one asked for),
 * `inflateSync` does the work again and its result or error is the one given.
 */
import { constants, deflateSync, Inflate, inflateSync } from "node:zlib";

/** The parts of node's zlib handle used here (internal to node, so checked before use). */
interface NativeInflater {
  reset(): void;
  writeSync(flush: number, input: Uint8Array, inputOffset: number, inputLength: number, output: Uint8Array, outputOffset: number, outputLength: number): void;
}

interface Engine {
  handle: NativeInflater;
  /** After a write: [output bytes left, input bytes left]. */
  state: Uint32Array;
  stream: Inflate;
}

/** Larger streams gain nothing from a kept handle, and a damaged header's size must not be allocated up front. */
const LARGEST_KEPT = 64 * 1024 * 1024;

let engine: Engine | undefined | null;

function engineOf(): Engine | undefined {
  if (engine === null) return undefined;
  if (engine !== undefined && !engine.stream.destroyed) return engine;
  const stream = new Inflate();
  const internals = stream as unknown as { _handle?: Partial<NativeInflater>; _writeState?: unknown };
  const handle = internals._handle;
  if (typeof handle?.reset !== "function" || typeof handle.writeSync !== "function" || !(internals._writeState instanceof Uint32Array)) {
    stream.close();
    engine = null;
    return undefined;
  }
  // A stream error reaches the stream as an 'error' event; the caller learns of it from `destroyed`.
  stream.on("error", () => {});
  const candidate = { handle: handle as NativeInflater, state: internals._writeState, stream };
  if (!inflatesKnownStream(candidate)) {
    stream.close();
    engine = null;
    return undefined;
  }
  engine = candidate;
  return engine;
}

/** Whether a new handle inflates a known stream exactly, before it is trusted with a pack. */
function inflatesKnownStream(candidate: Engine): boolean {
  const text = "a kept zlib handle";
  try {
    return inflateWith(candidate, deflateSync(text), text.length)?.toString("latin1") === text;
  } catch {
    return false;
  }
}

/** Whether this node's zlib handle is the one inflating (tests check the fast path is taken). */
export function keptHandleInUse(): boolean {
  return engineOf() !== undefined;
}

/** The stream inflated by `kept`, or undefined when it is not exactly `size` bytes that end the stream cleanly. */
function inflateWith(kept: Engine, compressed: Uint8Array, size: number): Buffer | undefined {
  // One byte more than asked for: room left over after the write means the stream ended there.
  const output = Buffer.allocUnsafe(size + 1);
  kept.handle.reset();
  kept.handle.writeSync(constants.Z_FINISH, compressed, 0, compressed.length, output, 0, size + 1);
  return !kept.stream.destroyed && kept.state[0] === 1 ? output.subarray(0, size) : undefined;
}

/**
 * The `size` bytes the zlib stream at the start of `compressed` inflates to (bytes after the
 * stream's end are ignored). Throws node's zlib error when the stream is damaged or does not
 * inflate to exactly `size` bytes within `size` (the caller checks the length it gets).
 */
export function inflateToSize(compressed: Uint8Array, size: number): Buffer {
  const kept = size <= LARGEST_KEPT ? engineOf() : undefined;
  if (kept !== undefined) {
    let inflated: Buffer | undefined;
    try {
      inflated = inflateWith(kept, compressed, size);
    } catch {
      // The handle itself failed (not the stream: that is reported through the stream): do without it.
      kept.stream.close();
      engine = null;
    }
    if (inflated !== undefined) return inflated;
  }
  return inflateSync(compressed, { chunkSize: Math.max(64, size + 1), maxOutputLength: Math.max(size, 1) });
}
