/**
 * Layer 1 of protected paths (src/policy/protected.ts): the bwrap mounts that keep them
 * read-only inside the write grants, and the check that refuses to start a tool host when one of
 * them became a symlink (mounting over it would mount what it leads to).
 */
import { dirname } from "node:path";
import { isWithin, type PathOps, type Protection } from "../../policy/mod.ts";
import { anchorDirs, type MountStep, type MountTarget } from "./_mount_steps.ts";

/**
 * Why the bwrap view cannot keep the protected paths read-only now (a protected path or git
 * directory became a symlink, or a directory a file, since the start: mounting it would mount
 * what it now leads to); undefined when it can. The tool host must not start then.
 */
export function protectedViewProblem(protection: Protection, paths: PathOps): string | undefined {
  const entries = [
    ...protection.paths.map((p) => ({ path: p.path, dir: p.kind.endsWith("dir") })),
    ...protection.anchors.map((path) => ({ path, dir: true })),
  ];
  for (const { path, dir } of entries) {
    const now = paths.lstat(path);
    if (now === undefined) continue;
    const what = (isDir: boolean) => isDir ? "a directory" : "a file";
    const change = now.kind === "symlink"
      ? `it is now a symlink to "${now.target}"`
      : (now.kind === "dir") !== dir
      ? `it was ${what(dir)} and is now ${what(now.kind === "dir")}`
      : realPathOf(paths, path) !== path
      ? "a directory above it is now a symlink"
      : undefined;
    if (change !== undefined) {
      return `Cannot start the tool host: the protected path "${path}" changed since the start ` +
        `(${change}), and mounting it could expose another location; restore it, or restart ` +
        "moat to protect what it is now";
    }
  }
  return undefined;
}

/**
 * bwrap arguments that keep the protected paths read-only where the view mounts them writable
 * (`writableRoot(p)`: the read-write mount holding `p`, undefined when `p` is not writable):
 * each git directory, and each directory between a writable mount and a protected path, bound
 * onto itself (a mount point cannot be renamed or removed, and renaming a directory would take
 * the read-only mounts inside along: `mv .git .git_old && mkdir .git` would give fresh hooks),
 * each protected path read-only, each carve-out read-write again (order them with the view's
 * other steps: `orderedStepArgs`). Paths that
 * are symlinks now are skipped (`protectedViewProblem` refuses to start with them).
 */
export function protectedMountSteps(
  protection: Protection,
  options: { paths: PathOps; writableRoot: (p: string) => string | undefined },
): MountStep[] {
  const { paths, writableRoot } = options;
  const steps: MountStep[] = [];
  const present = (p: string) => {
    const now = paths.lstat(p);
    return now !== undefined && now.kind !== "symlink" && realPathOf(paths, p) === p;
  };
  const anchors = new Set<string>();
  const anchorUpTo = (dir: string) => {
    for (const d of anchorDirs(dir, writableRoot(dir))) anchors.add(d);
  };
  // Inside a read-only protected path nothing can be renamed or created anyway; binding it
  // read-write again would undo the protection.
  const readOnly = (d: string) =>
    protection.paths.some((p) =>
      isWithin(d, p.path) &&
      !protection.named.some((n) => isWithin(n, p.path) && isWithin(d, n))
    );
  for (const dir of protection.anchors) anchorUpTo(dir);
  for (const p of protection.paths) {
    if (writableRoot(p.path) === undefined) continue;
    // A missing protected directory has a placeholder by now (protectedMountTargets).
    if (present(p.path)) {
      steps.push({ path: p.path, rank: 1, args: ["--ro-bind", p.path, p.path] });
      anchorUpTo(dirname(p.path));
    }
  }
  for (const dir of anchors) {
    if (paths.lstat(dir)?.kind === "dir" && present(dir) && !readOnly(dir)) {
      steps.push({ path: dir, rank: 0, args: ["--bind", dir, dir] });
    }
  }
  for (const named of protection.named) {
    const inside = protection.paths.some((p) => isWithin(named, p.path));
    if (inside && writableRoot(named) !== undefined && present(named)) {
      steps.push({ path: named, rank: 2, args: ["--bind", named, named] });
    }
  }
  return steps;
}

/**
 * The mount points of protected directories that were missing at the start, inside a write grant
 * in a real, writable directory and not carved out: each needs a placeholder before a host
 * starts (bash could create the directory otherwise), or has one (`exists`). The protected paths
 * that existed at the start and are mounted read-only are targets too (`exists`): one may be
 * another run's placeholder, which this run must hold while it mounts over it (its remover would
 * remove it otherwise, and the read-only mount with it).
 */
export function protectedMountTargets(
  protection: Protection,
  options: { paths: PathOps; writableRoot: (p: string) => string | undefined },
): MountTarget[] {
  const { paths, writableRoot } = options;
  const targets: MountTarget[] = [];
  for (const p of protection.paths) {
    // Carved out: nothing to keep read-only there.
    if (writableRoot(p.path) === undefined || protection.named.includes(p.path)) continue;
    if (p.kind === "dir" || p.kind === "file") {
      const now = paths.lstat(p.path);
      if (now?.kind === p.kind && realPathOf(paths, p.path) === p.path) {
        targets.push({ path: p.path, kind: p.kind, exists: true });
      }
      continue;
    }
    if (p.kind !== "missing_dir") continue;
    const parent = dirname(p.path);
    const inside = protection.paths.some((q) => q !== p && isWithin(parent, q.path));
    if (paths.lstat(parent)?.kind !== "dir" || realPathOf(paths, parent) !== parent || inside) {
      continue;
    }
    const now = paths.lstat(p.path);
    if (now === undefined || now.kind === "dir") {
      targets.push({ path: p.path, kind: "dir", exists: now !== undefined });
    }
  }
  return targets;
}

function realPathOf(paths: PathOps, p: string): string | undefined {
  const real = paths.realPath(p);
  return real.ok ? real.path : undefined;
}
