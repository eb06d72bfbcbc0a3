/**
 * bubblewrap: probing whether it works here, and building the argv of the tool host's sandbox
 * (a filesystem view made from the grants) and of the nested per-bash-call pid namespace.
 */
import { dirname, join } from "node:path";
import { createDenoCommandOps } from "../sys/command.ts";
import { createDenoPathOps } from "../sys/paths.ts";
import { isWithin } from "./_within.ts";
import type { Grants } from "./grants.ts";
import type { CommandOps, PathOps } from "./ops.ts";
import type { Protection } from "./protected.ts";
import { protectedMountArgs } from "./protected_view.ts";

export { isWithin };

/** Whether bubblewrap can be used on this machine, and if not, why. */
export type BwrapProbe =
  | {
    usable: true;
    path: string; /** a nested `bwrap --unshare-pid` works inside */
    nested: boolean;
  }
  | { usable: false; cause: string };

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

/** Directories whose programs are masked under a scoped `--allow-run` (plus PATH's own dirs). */
const STANDARD_BIN_DIRS: readonly string[] = [
  "/usr/local/sbin",
  "/usr/local/bin",
  "/usr/sbin",
  "/usr/bin",
  "/sbin",
  "/bin",
];

/** Programs a scoped `--allow-run` keeps executable besides the granted ones. */
const ALWAYS_KEPT_PROGRAMS: readonly string[] = ["bash", "bwrap"];

/** Options of `probeBwrap`. */
export interface ProbeOptions {
  /** The bwrap executable (default: found on `env.PATH`). */
  path?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Default: Deno's (src/sys/paths.ts). */
  paths?: PathOps;
  /** Default: Deno's (src/sys/command.ts). */
  commands?: CommandOps;
}

/**
 * Checks once whether bwrap is installed and can create the namespaces the tool host uses
 * (including a nested pid namespace). Never throws.
 */
export async function probeBwrap(options: ProbeOptions = {}): Promise<BwrapProbe> {
  const paths = options.paths ?? createDenoPathOps();
  const commands = options.commands ?? createDenoCommandOps();
  const path = options.path ?? findProgram("bwrap", options.env?.["PATH"], { paths });
  if (path === undefined) {
    return {
      usable: false,
      cause: "bubblewrap (bwrap) is not installed or not on PATH; install it (e.g. " +
        "apt-get install bubblewrap)",
    };
  }
  const base = [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--",
  ];
  const timeoutMs = options.timeoutMs ?? 5000;
  // Both at once: the probe is on the start-up path, and the nested one only counts when the
  // outer one works.
  const [outer, nested] = await Promise.all([
    runQuietly(commands, [path, ...base, path, "--version"], timeoutMs),
    runQuietly(commands, [path, ...base, ...nestedBashPrefix(path), path, "--version"], timeoutMs),
  ]);
  if (!outer.ok) {
    return {
      usable: false,
      cause: `bubblewrap cannot create namespaces here (${outer.detail}); ` +
        "user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone / " +
        "apparmor_restrict_unprivileged_userns) or the container forbids them",
    };
  }
  return { usable: true, path, nested: nested.ok };
}

async function runQuietly(
  commands: CommandOps,
  command: string[],
  timeoutMs: number,
): Promise<{ ok: boolean; detail: string }> {
  const [program, ...args] = command as [string, ...string[]];
  const out = await commands.output(program, args, { timeoutMs });
  if (!out.ok) return { ok: false, detail: out.message };
  const firstLine = out.stderr.trim().split("\n")[0] ?? "";
  return {
    ok: out.success,
    detail: out.success
      ? ""
      : firstLine || (out.signal ? `killed by ${out.signal}` : `exit code ${out.code}`),
  };
}

/** Absolute path of `name` on `pathVar` (colon-separated), or undefined. */
function findProgram(
  name: string,
  pathVar: string | undefined,
  options: { paths?: PathOps } = {},
): string | undefined {
  const paths = options.paths ?? createDenoPathOps();
  if (name.includes("/")) return isExecutableFile(paths, name) ? name : undefined;
  const dirs = (pathVar ?? "/usr/local/bin:/usr/bin:/bin").split(":").filter((d) => d !== "");
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutableFile(paths, candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(paths: PathOps, p: string): boolean {
  const st = paths.stat(p);
  return st !== undefined && st.kind === "file" && ((st.mode ?? 0o111) & 0o111) !== 0;
}

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
  /** Look-ups of the host's paths (default: Deno's, src/sys/paths.ts). */
  paths?: PathOps;
  /** Paths kept read-only inside the write grants; check `protectedViewProblem` first. */
  protection?: Protection;
}

interface Mount {
  path: string;
  /** hide: an empty tmpfs over what another mount brought along. */
  mode: "ro" | "rw" | "hide";
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
  const netGranted = spec.grants.net === true || spec.grants.net.length > 0;
  if (!netGranted) args.push("--unshare-net");
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

function viewArgs(spec: Omit<HostViewSpec, "env" | "command">, target: "host" | "bash"): string[] {
  const { grants } = spec;
  const paths = spec.paths ?? createDenoPathOps();
  const lstatKind = (p: string) => paths.lstat(p) ?? { kind: "missing" as const };
  const args: string[] = [];
  const mounts: Mount[] = [];
  const symlinks: Array<{ path: string; target: string }> = [];
  for (const dir of SYSTEM_DIRS) {
    const info = lstatKind(dir);
    if (info.kind === "symlink") symlinks.push({ path: dir, target: info.target });
    else if (info.kind === "dir") mounts.push({ path: dir, mode: "ro" });
  }
  for (const p of grants.read === true ? ["/"] : grants.read) mounts.push({ path: p, mode: "ro" });
  for (const p of spec.readOnlyPaths ?? []) mounts.push({ path: p, mode: "ro" });
  for (const p of grants.write === true ? ["/"] : grants.write) {
    mounts.push({ path: p, mode: "rw" });
  }
  if (spec.spillDir !== undefined) mounts.push({ path: spec.spillDir, mode: "rw" });

  // A granted path that does not exist yet (an approved new file) is reachable for the tools
  // through its nearest existing directory; Deno's permissions still hold the exact path. bash
  // gets no such stand-in.
  const effective = effectiveMounts(
    target === "host"
      ? mounts.map((m) => ({ path: existingAncestor(paths, m.path), mode: m.mode }))
      : mounts.filter((m) => paths.lstat(m.path) !== undefined),
  );
  const rootMounted = effective.some((m) => m.path === "/");
  // The host's stand-ins for missing paths reach bash through the mounts it shares with the host
  // (e.g. its private /tmp): cover them, unless a mount of bash's own view holds them anyway.
  const covers: Mount[] = target === "host" ? [] : mounts.flatMap((m): Mount[] => {
    const stand = existingAncestor(paths, m.path);
    if (stand === m.path || effective.some((e) => isWithin(stand, e.path))) return [];
    return [{ path: stand, mode: "hide" }];
  });
  const ordered = [...effective, ...effectiveMounts(covers)].sort((a, b) =>
    depth(a.path) - depth(b.path) || (a.mode === "hide" ? -1 : 0) - (b.mode === "hide" ? -1 : 0)
  );
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

  const visible = (p: string) => effective.some((m) => isWithin(p, m.path));

  // Protected paths: after the grants, before the deny lists (which win over carve-outs).
  if (spec.protection !== undefined) {
    const writableRoot = (p: string) => {
      const holder = effective.filter((m) => isWithin(p, m.path))
        .sort((a, b) => depth(b.path) - depth(a.path))[0];
      return holder?.mode === "rw" ? holder.path : undefined;
    };
    args.push(...protectedMountArgs(spec.protection, { paths, writableRoot }));
  }

  // Deny lists: what Deno's Worker permissions cannot express (they have no deny lists).
  for (const p of [...grants.denyWrite].sort((a, b) => depth(a) - depth(b))) {
    const info = lstatKind(p);
    if (info.kind === "missing" || !visible(p)) continue;
    args.push("--ro-bind", p, p);
  }
  for (const p of [...grants.denyRead].sort((a, b) => depth(a) - depth(b))) {
    const info = lstatKind(p);
    if (info.kind === "missing" || !visible(p)) continue;
    if (info.kind === "dir") args.push("--tmpfs", p, "--remount-ro", p);
    else args.push("--ro-bind", "/dev/null", p);
  }

  args.push(...programMaskArgs(spec, paths, { ordered, visible }));
  return args;
}

function programMaskArgs(
  spec: Omit<HostViewSpec, "env" | "command">,
  paths: PathOps,
  view: { ordered: Mount[]; visible: (p: string) => boolean },
): string[] {
  const { grants } = spec;
  const { ordered, visible } = view;
  const args: string[] = [];
  const dirs = binDirs(spec.toolPath, { paths }).filter(visible);
  const scoped = grants.run !== true && grants.explicit.run;
  if (scoped) {
    const keep = [...ALWAYS_KEPT_PROGRAMS, ...(grants.run as string[])].filter((p) =>
      !grants.denyRun.includes(p) || ALWAYS_KEPT_PROGRAMS.includes(p)
    );
    for (const dir of dirs) {
      args.push("--tmpfs", dir);
      for (const name of keep) {
        const candidate = name.includes("/") ? name : join(dir, name);
        if (dirname(candidate) !== dir || !isExecutableFile(paths, candidate)) continue;
        args.push("--ro-bind", candidate, candidate);
      }
      // Granted paths that live inside a masked directory (e.g. the moat binary) come back.
      for (const m of ordered) {
        if (m.path !== dir && isWithin(m.path, dir)) args.push(...bindArgs(m));
      }
      args.push("--remount-ro", dir);
    }
    return args;
  }
  for (const name of grants.denyRun) {
    for (const dir of dirs) {
      const candidate = name.includes("/") ? name : join(dir, name);
      if (name.includes("/") && dirname(candidate) !== dir) continue;
      if (isExecutableFile(paths, candidate)) args.push("--ro-bind", "/dev/null", candidate);
    }
  }
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

/** Real, existing, de-duplicated directories of `toolPath` plus the standard bin dirs. */
function binDirs(toolPath: string | undefined, options: { paths?: PathOps } = {}): string[] {
  const paths = options.paths ?? createDenoPathOps();
  const out: string[] = [];
  const candidates = [...(toolPath ?? "").split(":"), ...STANDARD_BIN_DIRS];
  for (const dir of candidates) {
    if (!dir.startsWith("/")) continue;
    const real = paths.realPath(dir);
    if (!real.ok || paths.stat(real.path)?.kind !== "dir") continue;
    if (!out.includes(real.path)) out.push(real.path);
  }
  return out;
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

function existingAncestor(paths: PathOps, p: string): string {
  let current = p;
  while (paths.lstat(current) === undefined) {
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}

function bindArgs(m: Mount): string[] {
  if (m.mode === "hide") return ["--tmpfs", m.path];
  return [m.mode === "rw" ? "--bind" : "--ro-bind", m.path, m.path];
}

function depth(p: string): number {
  return p === "/" ? 0 : p.split("/").length - 1;
}
