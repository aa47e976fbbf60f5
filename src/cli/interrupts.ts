/**
 * Ctrl-C and SIGTERM for commands that work in temporary folders: the first signal aborts the
 * work (commands are cancelled, temporary copies removed as the work unwinds); a second one
 * removes what is left at once and exits. Interrupted runs exit 130 (SIGINT) or 143 (SIGTERM).
 */
import { rmSync } from "node:fs";
import { processState } from "../process-state.js";

export type InterruptSignal = "SIGINT" | "SIGTERM";

export const INTERRUPT_EXIT_CODES: Record<InterruptSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/** How many commands watch for interruptions: one count for the process (process-state.ts). */
const state = processState("interrupts", () => ({ watching: 0 }));

/** Whether a command is handling SIGINT and SIGTERM itself (the CLI's default exit then stands aside). */
export function signalsClaimed(): boolean {
  return state.watching > 0;
}

export interface InterruptWatch {
  signal: AbortSignal;
  /** The signal that arrived first, if any. */
  readonly received: InterruptSignal | undefined;
  /** A temporary folder to remove if a second signal forces the exit. */
  track(folder: string): void;
  /** Stops listening. */
  dispose(): void;
}

export function watchInterrupts(onFirst?: (signal: InterruptSignal) => void): InterruptWatch {
  const controller = new AbortController();
  const folders = new Set<string>();
  let received: InterruptSignal | undefined;
  const handle = (signal: InterruptSignal) => {
    if (received !== undefined) {
      for (const folder of folders) rmSync(folder, { recursive: true, force: true });
      process.exit(INTERRUPT_EXIT_CODES[received]);
    }
    received = signal;
    onFirst?.(signal);
    controller.abort();
  };
  const onInterrupt = () => handle("SIGINT");
  const onTerminate = () => handle("SIGTERM");
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onTerminate);
  state.watching++;
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    track: (folder) => void folders.add(folder),
    dispose() {
      state.watching--;
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onTerminate);
    },
  };
}
