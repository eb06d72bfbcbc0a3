/**
 * The note a bash result gets when the command wrote into the host's private /tmp: a tmpfs that
 * bash calls share and the run discards, so what lands there "succeeds" and never reaches the
 * machine. Found by comparing the entries before and after the call (the tmpfs holds only what
 * this run wrote, so the walks are short).
 */
import { join } from "node:path";

/** One directory entry with its modification time. */
export interface TmpEntry {
  name: string;
  isDirectory: boolean;
  /** Modification time in ms since the epoch. */
  mtimeMs: number;
}

/** The look-ups of the walk. Must not throw. */
export interface TmpScanOps {
  /** The entries of `dir` (symlinks not followed); undefined when it cannot be read. */
  entries(dir: string): TmpEntry[] | undefined;
}

/** Entries looked at, at most, per walk. */
const MAX_ENTRIES = 2_000;

/** What the private /tmp holds: each path's modification time. */
export type TmpSnapshot = Map<string, number>;

/** The entries under `tmp.path` with their times, outside the granted paths mounted there. */
export function snapshotPrivateTmp(
  tmp: { path: string; mounted: readonly string[] },
  ops: TmpScanOps,
): TmpSnapshot {
  const snapshot: TmpSnapshot = new Map();
  const queue = [tmp.path];
  while (queue.length > 0 && snapshot.size < MAX_ENTRIES) {
    const dir = queue.shift() as string;
    for (const entry of ops.entries(dir) ?? []) {
      const path = join(dir, entry.name);
      // A granted path is real (bwrap mounted it): what is written there is kept.
      if (tmp.mounted.includes(path)) continue;
      snapshot.set(path, entry.mtimeMs);
      if (entry.isDirectory) queue.push(path);
      if (snapshot.size >= MAX_ENTRIES) break;
    }
  }
  return snapshot;
}

/** The first path of `after` that is new or changed since `before`; undefined when none is. */
export function changedInPrivateTmp(before: TmpSnapshot, after: TmpSnapshot): string | undefined {
  for (const [path, mtime] of after) {
    if (before.get(path) !== mtime) return path;
  }
  return undefined;
}

/** The note for a bash result whose command wrote `path` in the private /tmp. */
export function privateTmpNote(path: string, tmp: string): string {
  return `[moat: ${tmp} is private to this run and discarded: what the command wrote there ` +
    `("${path}") does not reach the machine and is gone when moat exits; write inside the ` +
    "workspace to keep it]";
}
