/**
 * Deny lists (`--deny-read`, `--deny-write`) in the bwrap view. The denied paths are fixed once
 * per run — real path, kind and file identity — and a tool host starts only when each one is
 * still that same file: a denied path turned into a symlink would make `--ro-bind p p` mount
 * what it leads to, and a renamed one would leave the file readable under its new name. Inside
 * the view, each denied path and the directories above it (up to the write grant) are mount
 * points, which cannot be renamed or removed, so nothing in the sandbox can move them.
 */
import { dirname } from "node:path";
import { anchorDirs, type MountStep } from "./_mount_steps.ts";
import type { Grants, PathOps } from "../../policy/mod.ts";

/** One denied path as it was at the start. */
export interface DeniedPath {
  /** Real path. */
  path: string;
  access: "read" | "write";
  kind: "file" | "dir";
  /** The file's identity (device and inode), when the platform gives one. */
  id?: string;
}

/** The run's denied paths with their kinds and identities (those that exist). */
export function scanDenied(grants: Grants, paths: PathOps): DeniedPath[] {
  const out: DeniedPath[] = [];
  const add = (path: string, access: DeniedPath["access"]) => {
    const info = paths.lstat(path);
    if (info === undefined || info.kind === "symlink") return;
    const entry: DeniedPath = { path, access, kind: info.kind === "dir" ? "dir" : "file" };
    if (info.id !== undefined) entry.id = info.id;
    out.push(entry);
  };
  for (const p of grants.denyRead) add(p, "read");
  for (const p of grants.denyWrite) add(p, "write");
  return out;
}

/**
 * Why a tool host must not start with these denied paths now: one is gone, is a symlink, has a
 * symlink above it, or is another file than at the start. Undefined when all are unchanged.
 */
export function deniedViewProblem(
  denied: readonly DeniedPath[],
  paths: PathOps,
): string | undefined {
  for (const entry of denied) {
    const now = paths.lstat(entry.path);
    const real = paths.realPath(entry.path);
    const change = now === undefined
      ? "it no longer exists"
      : now.kind === "symlink"
      ? `it is now a symlink to "${now.target}"`
      : !real.ok || real.path !== entry.path
      ? "a directory above it is now a symlink"
      : (now.kind === "dir") !== (entry.kind === "dir") ||
          (entry.id !== undefined && now.id !== entry.id)
      ? "it is another file now"
      : undefined;
    if (change !== undefined) {
      return `Cannot start the tool host: the denied path "${entry.path}" (--deny-${entry.access}) ` +
        `changed since the start (${change}), and mounting it could expose another location; ` +
        "restore it, or restart moat";
    }
  }
  return undefined;
}

/**
 * The mounts of the denied paths that the view shows (`visible`): read-denied directories become
 * an empty read-only tmpfs, read-denied files /dev/null, write-denied paths read-only; each
 * directory between the read-write mount holding a denied path (`writableRoot`) and the path is
 * bound onto itself. Kinds come from the start, so a view built from inside another view (where
 * a denied file is already /dev/null) masks the same way.
 */
export function deniedMountSteps(
  denied: readonly DeniedPath[],
  view: { visible: (p: string) => boolean; writableRoot: (p: string) => string | undefined },
): MountStep[] {
  const steps: MountStep[] = [];
  const anchors = new Set<string>();
  for (const entry of denied) {
    if (!view.visible(entry.path)) continue;
    for (const dir of anchorDirs(dirname(entry.path), view.writableRoot(entry.path))) {
      anchors.add(dir);
    }
    const p = entry.path;
    // Read masks come last at their depth: a path denied both ways must stay masked.
    steps.push(
      entry.access === "write" ? { path: p, rank: 3, args: ["--ro-bind", p, p] } : {
        path: p,
        rank: 4,
        args: entry.kind === "dir"
          ? ["--tmpfs", p, "--remount-ro", p]
          : ["--ro-bind", "/dev/null", p],
      },
    );
  }
  for (const dir of anchors) steps.push({ path: dir, rank: 0, args: ["--bind", dir, dir] });
  return steps;
}

/**
 * `steps` without those that would undo a denial: anything mounted inside a read-denied path
 * (it would bring real content back into the empty mask) but the masks themselves, and any
 * read-write mount (an anchor, a carve-out) inside a write-denied path.
 */
export function withoutDeniedUndo(
  steps: readonly MountStep[],
  denied: readonly DeniedPath[],
): MountStep[] {
  const within = (p: string, access: DeniedPath["access"]) =>
    denied.some((d) => d.access === access && (p === d.path || p.startsWith(d.path + "/")));
  return steps.filter((s) => {
    if (s.rank === 4) return true;
    if (within(s.path, "read")) return false;
    return !(s.args[0] === "--bind" && within(s.path, "write"));
  });
}
