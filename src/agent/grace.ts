/**
 * Abort grace for one batch: when the run's signal aborts while work is pending, ONE deadline
 * starts for the whole batch; whatever is still pending when it fires is abandoned by the caller.
 * No timer exists unless the signal aborted while something was pending.
 */
import type { Clock } from "./types.ts";

/** Default grace after an abort before pending executions are abandoned. */
export const DEFAULT_GRACE_MS = 10_000;

/** Options of `createAbortGrace`. */
export interface AbortGraceOptions {
  signal: AbortSignal;
  clock: Clock;
  graceMs: number;
  /** Called once when the deadline passes with work still pending; must not throw. */
  onDeadline: () => void;
}

/** The grace registry of one batch. */
export interface AbortGrace {
  /** Marks call `index` as pending (being prepared or executed). */
  add(index: number): void;
  /** Marks call `index` as no longer pending; the timer is cleared once nothing is pending. */
  delete(index: number): void;
  /** Removes the abort listener and any timer. */
  dispose(): void;
}

/** Creates the grace registry for one batch. */
export function createAbortGrace(options: AbortGraceOptions): AbortGrace {
  const { signal, clock, graceMs, onDeadline } = options;
  const pending = new Set<number>();
  let timer: unknown = undefined;
  let timerSet = false;
  let expired = false;
  let disposed = false;

  const startTimer = () => {
    if (timerSet || expired || disposed || pending.size === 0) return;
    timerSet = true;
    timer = clock.setTimeout(() => {
      timerSet = false;
      if (disposed) return;
      expired = true;
      pending.clear();
      onDeadline();
    }, graceMs);
  };
  const clearTimer = () => {
    if (!timerSet) return;
    timerSet = false;
    clock.clearTimeout(timer);
  };
  const onAbort = () => startTimer();
  signal.addEventListener("abort", onAbort, { once: true });

  return {
    add(index) {
      if (expired || disposed) return;
      pending.add(index);
      if (signal.aborted) startTimer();
    },
    delete(index) {
      pending.delete(index);
      // Everything settled within the grace: the deadline has nothing left to abandon.
      if (pending.size === 0) clearTimer();
    },
    dispose() {
      disposed = true;
      signal.removeEventListener("abort", onAbort);
      clearTimer();
    },
  };
}
