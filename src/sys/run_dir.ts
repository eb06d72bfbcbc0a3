/**
 * The run's temporary directory outlives no run: a script started after moat's own pattern
 * (./_after_moat.ts) removes it once moat closes its pipe or dies.
 */
import { type AfterMoat, startAfterMoat } from "./_after_moat.ts";

/** Removes a run's directory once moat is gone. */
export type RunDirReaper = AfterMoat;

/**
 * Waits for the end of stdin, then removes `$1` and everything in it; runs no program when it is
 * gone already (moat removed it itself before closing).
 */
export const REAPER_SCRIPT = "while IFS= read -r _; do :; done; " +
  '[ ! -e "$1" ] && [ ! -L "$1" ] || rm -rf -- "$1"';

/** Starts the reaper of `dir` (a directory moat made); undefined when bash cannot be started. */
export function startRunDirReaper(dir: string): RunDirReaper | undefined {
  return startAfterMoat(REAPER_SCRIPT, "moat-run-reaper", [dir]);
}
