/** The real clock: Date.now and the global timers. */
import type { Clock } from "../agent/types.ts";

/** Wall-clock time and real timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};
