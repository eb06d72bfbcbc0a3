/**
 * What a stdio MCP server must read to run at all — its own code — worked out from its command
 * line: the program (found on PATH, symlinks resolved), and for `node|nodejs|deno|bun|python|
 * python3|uv run <script>` the script. A JavaScript program or script gets its package directory
 * (the nearest ancestor with package.json, or the outermost `node_modules` of the install, where
 * npm hoists its dependencies); a Python script its directory; a venv's program the venv (and the
 * base Python it names). Never a directory that holds HOME, `/` or a shared temporary directory:
 * then only the file itself. Pure: every look-up goes through `OwnCodeOps`.
 */
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { isWithin } from "../policy/mod.ts";
import type { PathOps } from "../policy/ops.ts";

/** The look-ups the resolution needs (src/sys/paths.ts createDenoScanOps, or a fake). */
export type OwnCodeOps = PathOps & {
  /** The text of regular file `path` if it has at most `maxBytes`; absent: no venv is found. */
  readTextFile?(path: string, maxBytes: number): string | undefined;
};

/** A server's own code: what it runs and the real paths it gets read-only. */
export interface OwnCode {
  /** The program as found (absolute, not resolved), undefined when it is nowhere. */
  program?: string;
  /** The script an interpreter runs (absolute), when the command names one that exists. */
  script?: string;
  /** Real paths of the program's or script's package, deepest first; empty when none. */
  paths: string[];
}

const JS_RUNTIMES = new Set(["node", "nodejs", "deno", "bun"]);
const PYTHON = /^python(\d+(\.\d+)?)?$/;
const JS_FILE = /\.(c|m)?(j|t)sx?$/;
/** Directories the view always shows read-only. */
const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];
/** Directories whose whole content is never somebody's own code. */
const SHARED = ["/", "/tmp", "/var/tmp", "/dev/shm", "/usr", "/usr/local", "/opt", "/home"];

/** Where `name` is: as given (relative to `cwd`) when it has a "/", else the first PATH entry. */
export function findOnPath(
  name: string,
  options: { path: string | undefined; cwd: string; ops: PathOps },
): string | undefined {
  const { ops } = options;
  const isProgram = (p: string) => {
    const info = ops.stat(p);
    return info?.kind === "file" && (info.mode === null || (info.mode & 0o111) !== 0);
  };
  if (name.includes("/")) {
    const full = resolve(options.cwd, name);
    return isProgram(full) ? full : undefined;
  }
  for (const dir of (options.path ?? "").split(":")) {
    if (dir === "" || !isAbsolute(dir)) continue;
    if (isProgram(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The script an interpreter command line runs: its first non-flag argument that is a file. */
export function scriptOf(
  command: string,
  args: readonly string[],
  options: { cwd: string; ops: PathOps },
): string | undefined {
  const name = basename(command);
  let rest = args;
  if (name === "uv") {
    const run = args.indexOf("run");
    if (run < 0) return undefined;
    rest = args.slice(run + 1);
  } else if (!JS_RUNTIMES.has(name) && !PYTHON.test(name)) {
    return undefined;
  }
  for (const arg of rest) {
    if (arg.startsWith("-")) continue;
    const full = resolve(options.cwd, arg);
    if (options.ops.stat(full)?.kind === "file") return full;
  }
  return undefined;
}

/** The script an interpreter command line names that does not exist (a `.js`, `.py`… argument). */
export function missingScript(
  command: string,
  args: readonly string[],
  options: { cwd: string; ops: PathOps },
): string | undefined {
  const name = basename(command);
  if (!JS_RUNTIMES.has(name) && !PYTHON.test(name) && name !== "uv") return undefined;
  if (scriptOf(command, args, options) !== undefined) return undefined;
  const named = args.find((a) => !a.startsWith("-") && (JS_FILE.test(a) || a.endsWith(".py")));
  return named === undefined ? undefined : resolve(options.cwd, named);
}

/** The real paths a server's command line needs readable (see the module comment). */
export function ownCode(
  command: string,
  args: readonly string[],
  options: { cwd: string; path: string | undefined; home?: string; ops: OwnCodeOps },
): OwnCode {
  const { ops, cwd } = options;
  const program = findOnPath(command, { path: options.path, cwd, ops });
  const script = scriptOf(command, args, { cwd, ops });
  const out: OwnCode = {
    ...(program === undefined ? {} : { program }),
    ...(script === undefined ? {} : { script }),
    paths: [],
  };
  const add = (p: string | undefined) => {
    if (p !== undefined && !out.paths.includes(p)) out.paths.push(p);
  };
  const guard = (dir: string | undefined, file: string) =>
    dir === undefined || SHARED.includes(dir) ||
      (options.home !== undefined && isWithin(options.home, dir))
      ? file
      : dir;
  if (program !== undefined) {
    const venv = venvOf(program, ops);
    if (venv !== undefined) {
      add(guard(venv.root, program));
      if (venv.base !== undefined && !SHARED.includes(venv.base)) add(venv.base);
    } else if (PYTHON.test(basename(command))) {
      add(pythonPrefix(program, ops, guard));
    }
  }
  const target = script ?? program;
  const real = target === undefined ? undefined : ops.realPath(target);
  if (real === undefined || !real.ok) return out;
  const file = real.path;
  const python = PYTHON.test(basename(command)) || basename(command) === "uv" ||
    file.endsWith(".py");
  const js = JS_RUNTIMES.has(basename(command)) || JS_FILE.test(file) ||
    file.split("/").includes("node_modules");
  if (python && script !== undefined) add(guard(dirname(file), file));
  else if (js) {
    add(guard(packageDir(file, ops), file));
    // A script run by its `#!/usr/bin/env node` line needs node itself in the view.
    if (script === undefined && !JS_RUNTIMES.has(basename(command))) {
      const node = findOnPath("node", { path: options.path, cwd, ops });
      const nodeReal = node === undefined ? undefined : ops.realPath(node);
      if (nodeReal?.ok && !SYSTEM.some((d) => isWithin(nodeReal.path, d))) add(nodeReal.path);
    }
  } // A plain executable: the sandbox mounts the program it finds on PATH itself.
  else if (script !== undefined || command.includes("/")) add(file);
  return out;
}

/**
 * The package a JavaScript file belongs to: inside a `node_modules`, the outermost one of that
 * install (its dependencies are hoisted next to it); else the nearest ancestor with package.json.
 */
function packageDir(file: string, ops: PathOps): string | undefined {
  const parts = file.split("/");
  const first = parts.indexOf("node_modules");
  if (first > 0) return parts.slice(0, first + 1).join("/");
  for (let dir = dirname(file);; dir = dirname(dir)) {
    if (ops.lstat(join(dir, "package.json")) !== undefined) return dir;
    if (dir === "/") return undefined;
  }
}

/**
 * The installation prefix of a Python outside the system directories (`<prefix>/bin/python3.12`
 * next to `<prefix>/lib/python3.12`: its standard library), as `guard` allows it.
 */
function pythonPrefix(
  program: string,
  ops: PathOps,
  guard: (dir: string | undefined, file: string) => string,
): string | undefined {
  const real = ops.realPath(program);
  if (!real.ok || SYSTEM.some((d) => isWithin(real.path, d))) return undefined;
  const bin = dirname(real.path);
  if (basename(bin) !== "bin") return undefined;
  const prefix = dirname(bin);
  if (ops.stat(join(prefix, "lib", basename(real.path)))?.kind !== "dir") return undefined;
  return guard(prefix, real.path);
}

/** The venv a program lies in (`<root>/bin/<program>` next to `<root>/pyvenv.cfg`). */
function venvOf(
  program: string,
  ops: OwnCodeOps,
): { root: string; base?: string } | undefined {
  const bin = dirname(program);
  if (basename(bin) !== "bin") return undefined;
  const root = ops.realPath(dirname(bin));
  if (!root.ok) return undefined;
  const cfg = ops.readTextFile?.(join(root.path, "pyvenv.cfg"), 64 * 1024);
  if (cfg === undefined) return undefined;
  // `home` is the directory of the base interpreter: its prefix holds the standard library.
  const home = /^home\s*=\s*(.+?)\s*$/m.exec(cfg)?.[1];
  const base = home === undefined || !isAbsolute(home) ? undefined : ops.realPath(dirname(home));
  return { root: root.path, ...(base?.ok ? { base: base.path } : {}) };
}
