/** Watches for processes by command line and times when they are all gone (measure 7). */
import { cmdline, procInfo } from "./proc.ts";

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

function alive(pid: number): boolean {
  const info = procInfo(pid);
  return info !== null && info.state !== "Z" && info.state !== "X";
}

/** The outcome of a watch. */
export interface WatchResult {
  pids: number[];
  /** When the last watched process was seen gone (epoch ms), or null if some outlived the watch. */
  goneAt: number | null;
  /** Pids still alive when the watch gave up (they were SIGKILLed afterwards). */
  survivors: number[];
}

/**
 * Finds `expect` processes whose command line is exactly `needle` (scanning /proc every 5 ms), then
 * polls just those every millisecond until none is alive (zombies count as gone). Gives up after
 * `timeoutMs` and kills survivors so nothing outlives the bench.
 */
export async function watchUntilGone(
  needle: string,
  options: { expect: number; timeoutMs: number },
): Promise<WatchResult> {
  const deadline = performance.now() + options.timeoutMs;
  const pids = new Set<number>();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  while (pids.size < options.expect && performance.now() < deadline) {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const pid = Number(entry.name);
      if (pids.has(pid)) continue;
      const cmd = cmdline(pid);
      if (cmd !== null && cmd === needle && alive(pid)) {
        pids.add(pid);
      }
    }
    if (pids.size < options.expect) await sleep(5);
  }
  let goneAt: number | null = null;
  while (performance.now() < deadline) {
    if ([...pids].every((p) => !alive(p))) {
      goneAt = epochMs();
      break;
    }
    await sleep(1);
  }
  const survivors = [...pids].filter(alive);
  for (const pid of survivors) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* raced to exit */ }
  }
  return { pids: [...pids], goneAt: pids.size >= options.expect ? goneAt : null, survivors };
}
