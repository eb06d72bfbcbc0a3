/**
 * Deny lists (`--deny-read`, `--deny-write`) in the bwrap view. The denied paths are fixed once
 * per run — real path, kind and file identity — and a tool host starts only when each one is
 * still that same file: a denied path turned into a symlink would make `--ro-bind p p` mount
 * what it leads to, and a renamed one would leave the file readable under its new name. Inside
 * the view, each denied path and the directories above it (up to the write grant) are mount
 * points, which cannot be renamed or removed, so nothing in the sandbox can move them. A denied
 * path missing at the start is masked all the same, so that it stays denied if it appears: at
 * a placeholder (an empty file, or an empty directory for its first missing directory) that the
 * sandbox creates before the host starts and removes after the run.
 */
import { dirname } from "node:path";
import { anchorDirs, type MountStep, type MountTarget } from "./_mount_steps.ts";
import type { Grants, PathOps } from "../../policy/mod.ts";

/** One denied path as it was at the start. */
export interface DeniedPath {
  /** Real path. */
  path: string;
  access: "read" | "write";
  /** A file or directory (fixed by identity), or missing (denied by name, masked if it appears). */
  kind: "file" | "dir" | "missing";
  /** The file's identity (device and inode), when the platform gives one. */
  id?: string;
  /**
   * An `--ignore-read` path: masked in the view as a read-denied one (the tools, through their
   * guarded file operations, see it as missing).
   */
  ignored?: true;
}

/** One mask of the view: a denied path, or the placeholder that stands for a missing one. */
export interface DenyMask {
  path: string;
  access: DeniedPath["access"];
  kind: "file" | "dir";
}

/** The run's denied and ignored paths with their kinds and identities (missing ones by name). */
export function scanDenied(grants: Grants, paths: PathOps): DeniedPath[] {
  const out: DeniedPath[] = [];
  const add = (path: string, access: DeniedPath["access"], ignored = false) => {
    const info = paths.lstat(path);
    const mark = ignored ? { ignored: true as const } : {};
    if (info === undefined) {
      out.push({ path, access, kind: "missing", ...mark });
      return;
    }
    if (info.kind === "symlink") return;
    const entry: DeniedPath = { path, access, kind: info.kind === "dir" ? "dir" : "file", ...mark };
    if (info.id !== undefined) entry.id = info.id;
    out.push(entry);
  };
  for (const p of grants.denyRead) add(p, "read");
  for (const p of grants.denyWrite) add(p, "write");
  // A path both deny and ignore is denied (as Deno decides for the same path).
  for (const p of grants.ignoreRead) if (!grants.denyRead.includes(p)) add(p, "read", true);
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
    const change = entry.kind === "missing"
      ? missingChange(entry.path, paths)
      : now === undefined
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
      const flag = entry.ignored ? "ignore-read" : `deny-${entry.access}`;
      const what = entry.ignored ? "ignored" : "denied";
      return `Cannot start the tool host: the ${what} path "${entry.path}" (--${flag}) ` +
        `changed since the start (${change}), and mounting it could expose another location; ` +
        "restore it, or restart moat";
    }
  }
  return undefined;
}

/**
 * Why a denied path that was missing at the start cannot be masked now: it appeared as a
 * symlink (bwrap would mount over what it leads to), or the directory holding it (or its nearest
 * existing directory) lies under a symlink now.
 */
function missingChange(path: string, paths: PathOps): string | undefined {
  const now = paths.lstat(path);
  if (now?.kind === "symlink") return `it appeared as a symlink to "${now.target}"`;
  let existing = now === undefined ? dirname(path) : path;
  while (paths.lstat(existing) === undefined && dirname(existing) !== existing) {
    existing = dirname(existing);
  }
  const real = paths.realPath(existing);
  return real.ok && real.path === existing ? undefined : "a directory above it is now a symlink";
}

/**
 * Where each denied path is masked now, and the mount points of those masks that do not exist or
 * are placeholders (`placeholder(p)`: made by this run). A path denied while missing is masked
 * where it is once it exists (as the file or directory it is now); while it is missing, at its
 * first missing component (or the placeholder already standing there): an empty file for the
 * path itself, an empty directory for a missing directory above it.
 */
export function deniedMasks(
  denied: readonly DeniedPath[],
  paths: PathOps,
  placeholder: (p: string) => boolean,
): { masks: DenyMask[]; targets: MountTarget[] } {
  const masks: DenyMask[] = [];
  const targets: MountTarget[] = [];
  for (const entry of denied) {
    if (entry.kind !== "missing") {
      masks.push({ path: entry.path, access: entry.access, kind: entry.kind });
      // Perhaps another run's placeholder: held while masked, or its remover takes the mask.
      if (paths.lstat(entry.path)?.kind === entry.kind) {
        targets.push({ path: entry.path, kind: entry.kind, exists: true });
      }
      continue;
    }
    const now = paths.lstat(entry.path);
    if (now !== undefined && !placeholder(entry.path)) {
      if (now.kind === "file" || now.kind === "dir") {
        masks.push({ path: entry.path, access: entry.access, kind: now.kind });
        targets.push({ path: entry.path, kind: now.kind, exists: true });
      }
      continue;
    }
    let at = entry.path;
    for (;;) {
      const parent = dirname(at);
      if (parent === at || (paths.lstat(parent) !== undefined && !placeholder(parent))) break;
      at = parent;
    }
    const holder = paths.lstat(dirname(at));
    if (holder?.kind !== "dir" || missingChange(entry.path, paths) !== undefined) continue;
    const info = paths.lstat(at);
    const kind = info?.kind === "file" || info?.kind === "dir"
      ? info.kind
      : at === entry.path
      ? "file"
      : "dir";
    masks.push({ path: at, access: entry.access, kind });
    targets.push({ path: at, kind, exists: info !== undefined });
  }
  return { masks, targets };
}

/**
 * The mounts of the denied paths that the view shows (`visible`): read-denied directories become
 * an empty read-only tmpfs, read-denied files /dev/null, write-denied paths read-only; each
 * directory between the read-write mount holding a denied path (`writableRoot`) and the path is
 * bound onto itself. Kinds come from the start, so a view built from inside another view (where
 * a denied file is already /dev/null) masks the same way.
 */
export function deniedMountSteps(
  denied: readonly DenyMask[],
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
  denied: readonly DenyMask[],
): MountStep[] {
  const within = (p: string, access: DeniedPath["access"]) =>
    denied.some((d) => d.access === access && (p === d.path || p.startsWith(d.path + "/")));
  return steps.filter((s) => {
    if (s.rank === 4) return true;
    if (within(s.path, "read")) return false;
    return !(s.args[0] === "--bind" && within(s.path, "write"));
  });
}
