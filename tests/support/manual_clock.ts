/** A clock that moves only when a test ticks it: timers fire in order, nothing races real time. */
import type { Clock } from "../../src/agent/mod.ts";

/** A clock whose timers fire only when `tick` is called. */
export function createManualClock(): Clock & { tick(ms: number): void; pending(): number } {
  let now = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = next++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    tick(ms) {
      now += ms;
      for (const [id, t] of [...timers]) {
        if (t.at <= now) {
          timers.delete(id);
          t.fn();
        }
      }
    },
    pending: () => timers.size,
  };
}
