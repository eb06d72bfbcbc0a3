/**
 * bwrap mounts placed over the grants (anchors, protected paths, deny lists) as steps that are
 * ordered together: by depth, then by rank, so a mount never hides one made inside it before.
 */
import { dirname } from "node:path";
import { isWithin } from "../../policy/mod.ts";

/**
 * A mount point the view needs at a path that may not exist: bwrap would create a missing one
 * through the read-write mount holding it, on the host, so the sandbox creates it first as a
 * placeholder that it removes after the run (src/sandbox/mount_points.ts). `exists`: it exists
 * now (a placeholder made before, by this run or another one).
 */
export interface MountTarget {
  path: string;
  kind: "file" | "dir";
  exists: boolean;
}

/** One mount (its bwrap arguments) at `path`; lower ranks go first at the same depth. */
export interface MountStep {
  path: string;
  /** 0 anchors, 1 protected paths, 2 carve-outs, 3 write-denied paths, 4 read-denied paths. */
  rank: number;
  args: string[];
}

/**
 * The directories from `dir` up to (not including) `root`, the read-write mount that holds it:
 * bound onto themselves they become mount points, which cannot be renamed or removed, so the
 * mounts inside them stay where the view put them (`mv parent other` would take them along).
 */
export function anchorDirs(dir: string, root: string | undefined): string[] {
  const out: string[] = [];
  for (let d = dir; root !== undefined && d !== root && isWithin(d, root); d = dirname(d)) {
    out.push(d);
  }
  return out;
}

/** The arguments of `steps` in mount order (shallow first; at one depth, by rank). */
export function orderedStepArgs(steps: readonly MountStep[]): string[] {
  return [...steps]
    .sort((a, b) => depthOf(a.path) - depthOf(b.path) || a.rank - b.rank)
    .flatMap((s) => s.args);
}

/** Path components below `/`. */
export function depthOf(p: string): number {
  return p === "/" ? 0 : p.split("/").length - 1;
}
