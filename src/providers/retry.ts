/**
 * When and how long to wait before trying a model request again: exponential backoff with
 * jitter, or the server's own Retry-After, capped so a server cannot stall clio for long.
 */
import { ApplicationError } from "../errors.js";

export interface RetryPolicy {
  /** Attempts after the first one. */
  maxRetries: number;
  /** The first backoff; each later one doubles, before jitter. */
  baseDelayMs: number;
  /** The longest computed backoff. */
  maxDelayMs: number;
  /** The longest wait a server's Retry-After may ask for; longer asks are cut to this. */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 1_000,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
};

/** The waiting seam: tests pass one that records the delay and returns at once. */
export type Sleep = (milliseconds: number, signal?: AbortSignal) => Promise<void>;

/** Waits, or rejects with a `cancelled` ApplicationError as soon as the signal aborts. */
export const sleep: Sleep = (milliseconds, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export function cancelledError(): ApplicationError {
  return new ApplicationError("cancelled", "The model request was cancelled.");
}

/** The backoff before retry number `attempt` (1 for the first retry): half fixed, half random. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential * (0.5 + random() * 0.5));
}

/**
 * The wait a response asks for in `retry-after-ms` or `Retry-After` (seconds or an HTTP
 * date), capped at the policy's maximum; undefined when it asks for none.
 */
export function retryAfterDelay(headers: { get(name: string): string | null } | undefined, policy: RetryPolicy, now: number = Date.now()): number | undefined {
  const milliseconds = parseRetryAfter(headers, now);
  return milliseconds === undefined ? undefined : Math.min(milliseconds, policy.maxRetryAfterMs);
}

function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now: number): number | undefined {
  const inMilliseconds = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(inMilliseconds) && inMilliseconds >= 0) return Math.round(inMilliseconds);
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number.parseFloat(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
