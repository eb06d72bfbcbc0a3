/**
 * The bwrap argv of the tool host's sandbox (a filesystem view made from the grants) and of the
 * nested per-bash-call pid namespace, and the check that a view may still be built as it was.
 */
import { type Grants, isWithin, type PathOps, type Protection } from "../../policy/mod.ts";
import {
  protectedMountSteps,
  protectedMountTargets,
  protectedViewProblem,
} from "./protected_view.ts";
import {
  deniedMasks,
  deniedMountSteps,
  type DeniedPath,
  deniedViewProblem,
  scanDenied,
  withoutDeniedUndo,
} from "./deny_view.ts";
import { type MountTarget, orderedStepArgs } from "./_mount_steps.ts";
import { programMaskArgs } from "./program_masks.ts";
import type { HiddenDir } from "./hide_view.ts";
import { basename, dirname } from "node:path";

/** Runtime directories every tool host sees read-only (when they exist). */
const SYSTEM_DIRS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
];

/** What the tool host's view is built from. */
export interface HostViewSpec {
  bwrapPath: string;
  grants: Grants;
  /** Working directory inside the sandbox (the workspace). */
  cwd: string;
  /** Per-run bash spill directory: always readable and writable. */
  spillDir?: string;
  /** More read-only paths: the moat executable, and under `deno run` the project and Deno's cache. */
  readOnlyPaths?: string[];
  /** The complete environment of the host process (`--clearenv` drops everything else). */
  env: Record<string, string>;
  /** PATH of the tools (its directories are masked under a scoped `--allow-run`). */
  toolPath?: string;
  /** The command run inside the sandbox. */
  command: string[];
  /** Look-ups of the host's paths. */
  paths: PathOps;
  /** Paths kept read-only inside the write grants; check `hostViewProblem` first. */
  protection?: Protection;
  /** The denied paths fixed at the start (`scanDenied`); default: scanned now. */
  denied?: DeniedPath[];
  /** Every other name of a `--deny-run` program (./program_copies.ts), masked too. */
  deniedPrograms?: string[];
  /** The placeholders this run made (src/sandbox/mount_points.ts); default: none. */
  placeholders?: (path: string) => boolean;
}

interface Mount {
  path: string;
  mode: "ro" | "rw";
}

/**
 * Builds the full bwrap argv (without the bwrap executable itself) for the tool host: system dirs
 * read-only, read grants read-only, write grants read-write, a private /tmp, /dev and /proc,
 * protected paths read-only inside the write grants, deny lists masked, PATH programs masked
 * under a scoped `--allow-run`, `--clearenv` + `env`.
 */
export function buildHostArgs(spec: HostViewSpec): string[] {
  const args: string[] = [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
  ];
  // Only a bare --allow-net (or -A) shares the machine's network. Under a scoped one the host
  // keeps its own (no abstract UNIX sockets of the machine either), and bash reaches the granted
  // hosts through moat's proxy (src/sandbox/net/proxy.ts); so does a bare one with --deny-net.
  if (spec.grants.net !== true || spec.grants.denyNet.length > 0) args.push("--unshare-net");
  args.push(...viewArgs(spec, "host"));
  args.push("--clearenv");
  for (const [k, v] of Object.entries(spec.env)) args.push("--setenv", k, v);
  args.push("--chdir", spec.cwd, "--", ...spec.command);
  return args;
}

/**
 * The filesystem view of bash calls, built again inside the tool host from the same grants (the
 * mount sources are the host's view). It differs in one way: a granted path that does not exist
 * yet (an approved new file) is left out instead of exposing its nearest existing directory, so
 * approving `write /etc/new.conf` lets the write tool create that file but gives bash nothing.
 */
export function bashViewArgs(spec: Omit<HostViewSpec, "env" | "command">): string[] {
  return viewArgs(spec, "bash");
}

/**
 * The directories of bash's view that hold an `--ignore-read` path (./hide_view.ts rebuilds
 * them without it at each call); a path whose directory bash does not see needs nothing.
 */
export function bashHiddenDirs(spec: Omit<HostViewSpec, "env" | "command">): HiddenDir[] {
  const { effective, visible } = viewMounts(spec);
  const dirs = new Map<string, HiddenDir>();
  for (const entry of currentDenied(spec, spec.paths)) {
    if (!entry.ignored) continue;
    const dir = dirname(entry.path);
    if (dir === entry.path || !visible(dir)) continue;
    const hidden = dirs.get(dir) ?? {
      dir,
      names: [],
      mounts: effective.filter((m) => isWithin(dir, m.path) || isWithin(m.path, dir))
        .map((m) => ({ path: m.path, mode: m.mode })),
    };
    hidden.names.push(basename(entry.path));
    dirs.set(dir, hidden);
  }
  return [...dirs.values()];
}

/**
 * The mount points the view of `spec` needs at paths that may be missing (denied and protected
 * paths that did not exist at the start): create the missing ones before building the view.
 */
export function viewMountTargets(spec: Omit<HostViewSpec, "env" | "command">): MountTarget[] {
  const { visible, writableRoot } = viewMounts(spec);
  const { paths } = spec;
  const denied = deniedMasks(currentDenied(spec, paths), paths, spec.placeholders ?? none);
  return [
    ...denied.targets.filter((t) => visible(t.path)),
    ...(spec.protection === undefined
      ? []
      : protectedMountTargets(spec.protection, { paths, writableRoot })),
  ];
}

const none = () => false;

/** The effective mounts of the grants, and which paths they show and hold writable. */
function viewMounts(spec: Omit<HostViewSpec, "env" | "command">) {
  const { grants, paths } = spec;
  const mounts: Mount[] = [];
  const symlinks: Array<{ path: string; target: string }> = [];
  for (const dir of SYSTEM_DIRS) {
    const info = paths.lstat(dir);
    if (info?.kind === "symlink") symlinks.push({ path: dir, target: info.target });
    else if (info?.kind === "dir") mounts.push({ path: dir, mode: "ro" });
  }
  for (const p of grants.read === true ? ["/"] : grants.read) mounts.push({ path: p, mode: "ro" });
  for (const p of spec.readOnlyPaths ?? []) mounts.push({ path: p, mode: "ro" });
  for (const p of grants.write === true ? ["/"] : grants.write) {
    mounts.push({ path: p, mode: "rw" });
  }
  if (spec.spillDir !== undefined) mounts.push({ path: spec.spillDir, mode: "rw" });

  // A granted path that does not exist (an approval of a file whose directory is missing) is not
  // mounted: the view grows by exactly the granted paths, never by an ancestor (an approved new
  // file is created before its host starts, see src/sandbox/approvals.ts).
  const effective = effectiveMounts(mounts.filter((m) => paths.lstat(m.path) !== undefined));
  const visible = (p: string) => effective.some((m) => isWithin(p, m.path));
  // The read-write mount holding `p`, undefined when `p` is not writable in the view.
  const writableRoot = (p: string) => {
    const holder = effective.filter((m) => isWithin(p, m.path))
      .sort((a, b) => depth(b.path) - depth(a.path))[0];
    return holder?.mode === "rw" ? holder.path : undefined;
  };
  return { effective, symlinks, visible, writableRoot };
}

function viewArgs(spec: Omit<HostViewSpec, "env" | "command">, target: "host" | "bash"): string[] {
  const { paths } = spec;
  const args: string[] = [];
  const { effective, symlinks, visible, writableRoot } = viewMounts(spec);
  const rootMounted = effective.some((m) => m.path === "/");
  const ordered = [...effective].sort((a, b) => depth(a.path) - depth(b.path));
  const tmpGranted = effective.some((m) => m.path === "/tmp");

  for (const m of ordered.filter((m) => m.path === "/")) args.push(...bindArgs(m));
  if (!rootMounted) {
    for (const s of symlinks) args.push("--symlink", s.target, s.path);
  }
  if (target === "host") args.push("--dev", "/dev", "--proc", "/proc");
  else args.push("--dev-bind", "/dev", "/dev", "--proc", "/proc");
  // /tmp is private to the host unless granted (a grant of "/" includes it, as in Deno); bash
  // calls share the host's.
  if (!tmpGranted && !rootMounted) {
    if (target === "host") args.push("--tmpfs", "/tmp");
    else args.push("--bind", "/tmp", "/tmp");
  }
  for (const m of ordered.filter((m) => m.path !== "/")) args.push(...bindArgs(m));

  // Protected paths and deny lists (which Deno's Worker permissions cannot express), ordered
  // together so that no mount hides another, and nothing undoes a denial.
  // A mask whose placeholder could not be made is left out: bwrap could not create it either.
  const denied = deniedMasks(currentDenied(spec, paths), paths, spec.placeholders ?? none).masks
    .filter((m) => paths.lstat(m.path) !== undefined);
  args.push(...orderedStepArgs(withoutDeniedUndo([
    ...(spec.protection === undefined
      ? []
      : protectedMountSteps(spec.protection, { paths, writableRoot })),
    ...deniedMountSteps(denied, { visible, writableRoot }),
  ], denied)));

  args.push(...programMaskArgs(spec, paths, {
    visible,
    // Granted paths inside a masked directory (e.g. the moat binary) come back after the mask.
    remount: (dir) =>
      ordered.filter((m) => m.path !== dir && isWithin(m.path, dir)).flatMap(bindArgs),
  }));
  return args;
}

/**
 * The argv prefix each bash call runs under inside the tool host: its own pid namespace, so that
 * nothing it starts (setsid and double forks included) survives the call. `view` (from
 * `bashViewArgs`) is its filesystem (default: the host's whole view). Under a scoped
 * `--allow-run`, `hidePaths` (e.g. the moat/deno executable) are masked for the call.
 */
export function nestedBashPrefix(
  bwrapPath: string,
  hidePaths: readonly string[] = [],
  view?: readonly string[],
): string[] {
  const args = [bwrapPath, "--unshare-pid", "--die-with-parent"];
  if (view === undefined) {
    args.push("--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc");
  } else {
    args.push(...view);
  }
  for (const p of hidePaths) args.push("--ro-bind", "/dev/null", p);
  args.push("--");
  return args;
}

/**
 * Where more mounts go in a `nestedBashPrefix(…, hidePaths, …)` argv: after the view, before the
 * masks of `hidePaths` (3 arguments each) and the final "--".
 */
export function nestedBashViewEnd(prefix: readonly string[], hidePaths: readonly string[]): number {
  return prefix.length - 1 - 3 * hidePaths.length;
}

function effectiveMounts(mounts: Mount[]): Mount[] {
  return mounts.filter((m, i) => {
    if (isWithin(m.path, "/proc") || isWithin(m.path, "/dev")) return false;
    // Redundant when an ancestor (or the same path) already gives at least the same access.
    return !mounts.some((other, j) => {
      if (j === i || !isWithin(m.path, other.path)) return false;
      if (other.path === m.path) return other.mode === m.mode ? j < i : other.mode === "rw";
      return other.mode === "rw" || m.mode === "ro";
    });
  });
}

function bindArgs(m: Mount): string[] {
  return [m.mode === "rw" ? "--bind" : "--ro-bind", m.path, m.path];
}

/** The denied paths fixed at the start that the grants still deny. */
function currentDenied(spec: Omit<HostViewSpec, "env" | "command">, paths: PathOps) {
  const { grants } = spec;
  const all = spec.denied ?? scanDenied(grants, paths);
  return all.filter((d) =>
    (d.ignored ? grants.ignoreRead : d.access === "read" ? grants.denyRead : grants.denyWrite)
      .includes(d.path)
  );
}

/**
 * Why a tool host must not start with this view now (undefined when it may): a granted path, a
 * denied path or a protected path changed since the start so that mounting it would follow a
 * symlink (bwrap follows one it mounts over) or expose a file under a new name.
 */
export function hostViewProblem(spec: Omit<HostViewSpec, "env" | "command">): string | undefined {
  const { grants, paths } = spec;
  const granted = [
    ...(grants.read === true ? [] : grants.read),
    ...(grants.write === true ? [] : grants.write),
    ...(spec.spillDir === undefined ? [] : [spec.spillDir]),
  ];
  for (const p of granted) {
    if (paths.lstat(p) === undefined) continue;
    const real = paths.realPath(p);
    if (!real.ok || real.path !== p) {
      return `Cannot start the tool host: the granted path "${p}" is now a symlink or lies under ` +
        "one, and mounting it would expose another location; restore it, or restart moat";
    }
  }
  return deniedViewProblem(currentDenied(spec, paths), paths) ??
    (spec.protection === undefined ? undefined : protectedViewProblem(spec.protection, paths));
}

function depth(p: string): number {
  return p === "/" ? 0 : p.split("/").length - 1;
}

/**
 * The host's private /tmp (a tmpfs discarded with the host, which bash calls share) and the
 * granted paths mounted inside it (real ones); undefined when /tmp is granted and real.
 */
export function privateTmp(
  spec: Omit<HostViewSpec, "env" | "command">,
): { path: string; mounted: string[] } | undefined {
  const { effective } = viewMounts(spec);
  if (effective.some((m) => m.path === "/" || m.path === "/tmp")) return undefined;
  return {
    path: "/tmp",
    mounted: effective.filter((m) => isWithin(m.path, "/tmp")).map((m) => m.path),
  };
}
