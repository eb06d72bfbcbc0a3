/**
 * The run's placeholders: a view needs a mount point at each denied or protected path that did
 * not exist at the start (so that it stays masked if it appears), and bwrap would create a missing
 * one on the host through the workspace's read-write mount, where it would stay. The sandbox
 * creates each one itself before a host starts — an empty file or directory, marked — records it
 * with a remover that outlives moat, and holds a shared lock on it for the rest of the run. The
 * remover removes, once moat is gone (closed, or killed), each recorded path that is still an
 * unused placeholder: the same entry, still empty and marked, locked by no other run. Anything
 * written there in between keeps it. Another run's placeholder found at a path is held and
 * recorded the same way, so neither run removes it while the other mounts over it.
 */
import type { PathOps } from "../policy/mod.ts";
import type { MountTarget } from "./bwrap/mod.ts";
import type { HeldPlaceholder, MountPointOps, PlaceholderRemover } from "./ops.ts";

/** The run's placeholders (bwrap mode). */
export interface MountPoints {
  /** True when `path` is a placeholder this run holds (still the entry it made or found). */
  holds(path: string): boolean;
  /**
   * Creates the missing `targets` and holds them and the placeholders among the existing ones.
   * A target that cannot be created is left missing (the view leaves its mask out: nothing
   * without moat's own rights could create it either). Undefined, or why a host must not start.
   */
  ensure(targets: readonly MountTarget[]): string | undefined;
  /** Releases every placeholder and lets the remover remove them; resolves once it has. */
  close(): Promise<void>;
}

/** How often `ensure` tries a target that another run's remover removes meanwhile. */
const ATTEMPTS = 3;

/** The placeholders of a run, made and held through `ops`. */
export function createMountPoints(ops: MountPointOps, paths: PathOps): MountPoints {
  const held = new Map<string, HeldPlaceholder>();
  let remover: PlaceholderRemover | undefined;
  let closing: Promise<void> | undefined;
  const holds = (path: string) => {
    const entry = held.get(path);
    return entry !== undefined && paths.lstat(path)?.kind !== "symlink" &&
      idOf(paths, path) === entry.id;
  };
  const recorded = new Set<string>();
  const record = (path: string): string | undefined => {
    if (recorded.has(path)) return undefined;
    // A line per path in the remover's list.
    if (path.includes("\n")) {
      return `Cannot start the tool host: the path "${path}" needs a placeholder but contains a ` +
        "line break; rename it, or drop it from the --deny-* flags";
    }
    remover ??= ops.startRemover();
    if (remover === undefined || !remover.record(path)) {
      return `Cannot start the tool host: the placeholder for "${path}" could not be recorded ` +
        "for removal after the run (the remover did not start); check that bash, stat and " +
        "flock are installed";
    }
    recorded.add(path);
    return undefined;
  };
  const ensureOne = (target: MountTarget): string | undefined => {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (holds(target.path)) return undefined;
      held.get(target.path)?.release();
      held.delete(target.path);
      if (paths.lstat(target.path) === undefined) {
        // Recorded first: a remover started after a kill would otherwise miss it.
        const problem = record(target.path);
        if (problem !== undefined) return problem;
        if (!ops.create(target.path, target.kind) && paths.lstat(target.path) === undefined) {
          return undefined;
        }
      }
      // Ours, or another run's placeholder (a real file or directory is not one: nothing to do).
      if (!looksLikePlaceholder(paths, target.path)) return undefined;
      const looked = idOf(paths, target.path);
      const lock = ops.hold(target.path);
      if (lock !== undefined) {
        const problem = record(target.path);
        if (problem !== undefined) {
          lock.release();
          return problem;
        }
        held.set(target.path, lock);
        return undefined;
      }
      // Still the entry looked at: a real one (nothing to hold). Else it was removed by another
      // run's remover between the look and the lock (make it again), or made again by a third
      // run meanwhile (look again).
      if (looked !== undefined && idOf(paths, target.path) === looked) return undefined;
    }
    return undefined;
  };
  return {
    holds,
    ensure(targets) {
      if (closing !== undefined) return "Cannot start the tool host: the sandbox is closing";
      for (const target of targets) {
        const problem = ensureOne(target);
        if (problem !== undefined) return problem;
      }
      return undefined;
    },
    close() {
      closing ??= (async () => {
        for (const lock of held.values()) lock.release();
        held.clear();
        await remover?.close();
      })();
      return closing;
    },
  };
}

function idOf(paths: PathOps, path: string): string | undefined {
  const info = paths.lstat(path);
  return info === undefined || info.kind === "symlink" ? undefined : info.id;
}

/** A file or directory that may be a placeholder (`hold` checks the mark and emptiness). */
function looksLikePlaceholder(paths: PathOps, path: string): boolean {
  const info = paths.lstat(path);
  return info?.kind === "dir" || (info?.kind === "file" && info.size === 0);
}
