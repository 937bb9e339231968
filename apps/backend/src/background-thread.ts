/** What the server's own background threads (the WAL checkpoint, span export) share: a low priority, and not keeping the process alive while idle. */
import { setPriority } from "node:os";

/**
 * Lowers the calling thread's priority to nice 10 (Linux priorities are per thread): on a busy machine its work can
 * wait, the event loop and the JIT compiler come first. Where that is not allowed, the thread keeps normal priority.
 */
export function runAtLowPriority(): void {
  try {
    setPriority(10);
  } catch {
    // not allowed here: normal priority
  }
}

/** Bun's `Worker` keeps the process alive or not, like a timer (`ref`/`unref`; the DOM's `Worker` type has neither). */
export function keepsAlive(worker: Worker, on: boolean): void {
  const referable = worker as Worker & { ref(): void; unref(): void };
  if (on) referable.ref();
  else referable.unref();
}
