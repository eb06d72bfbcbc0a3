/** The one place tools resolve paths: cwd-relative, `~` expanded, real paths for the policy. */
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { expandHome } from "../policy/home.ts";
import { FsError, type FsOps } from "./ops.ts";
import { hiddenAsMissing, type PlaceholderFilter } from "./placeholders.ts";

/** The options every filesystem tool takes: serialisable apart from the injectable `fs`. */
export interface FsToolOptions {
  /** Working directory that relative paths resolve against. */
  cwd: string;
  /** Home directory for `~`; defaults to `fs.homeDir()`. */
  home?: string;
  /** Filesystem operations (the entry points pass Deno's: src/sys/fs.ts). */
  fs: FsOps;
  /** The OS sandbox's placeholder paths (real paths), shown as missing while unused. */
  placeholders?: readonly string[];
}

/** A path argument that cannot be resolved (e.g. `~` without a known home directory). */
export class PathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PathError";
  }
}

/**
 * Wraps a tool body so an unresolvable path argument becomes an error result instead of a throw.
 */
export function pathErrorsAsResults<P extends unknown[], R>(
  run: (...params: P) => Promise<R>,
): (...params: P) => Promise<R | { isError: true; output: string }> {
  return async (...params) => {
    try {
      return await run(...params);
    } catch (e) {
      if (e instanceof PathError) return { isError: true, output: e.message };
      throw e;
    }
  };
}

/**
 * Resolves a tool path argument against `cwd`, expanding a leading `~` with `home` (the home
 * directory moat resolved at the start, src/policy/home.ts); `~user` is refused, not read as a
 * name in `cwd`.
 */
export function resolvePath(cwd: string, p: string, options: { home?: string } = {}): string {
  const expanded = expandHome(p, options.home);
  if (!expanded.ok) throw new PathError(`Cannot expand "~" in "${p}": ${expanded.reason}`);
  return isAbsolute(expanded.path) ? resolve(expanded.path) : resolve(cwd, expanded.path);
}

/** How many symlinks `realLocation` follows through missing targets (as the OS, ELOOP). */
const MAX_LINK_HOPS = 40;

/**
 * The real path of `absPath`: realpath, or the realpath of its nearest existing parent plus the
 * remaining segments when it does not exist yet. With `followDangling` (what reading tools
 * touch), a symlink whose target is missing counts as that target: reading through a link must
 * be judged where it leads whether or not the target exists, or the answer would tell an outside
 * path's existence. (A write replaces a dangling link itself, so writes do not follow it.)
 */
export async function realLocation(
  fs: FsOps,
  absPath: string,
  options: { followDangling?: boolean } = {},
): Promise<string> {
  const missing: string[] = [];
  let current = absPath;
  let hops = 0;
  for (;;) {
    try {
      const real = await fs.realPath(current);
      return missing.length === 0 ? real : join(real, ...[...missing].reverse());
    } catch (e) {
      if (!(e instanceof FsError) || e.code !== "not_found") throw e;
      const link = options.followDangling && fs.readLink !== undefined && hops < MAX_LINK_HOPS
        ? await danglingTarget(fs, current)
        : undefined;
      if (link !== undefined) {
        hops++;
        current = link;
        continue;
      }
      const parent = dirname(current);
      if (parent === current) throw e;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** Where the symlink at `path` points (absolute), when `path` is one; undefined otherwise. */
async function danglingTarget(fs: FsOps, path: string): Promise<string | undefined> {
  try {
    const info = await fs.lstat(path);
    if (!info.isSymlink || fs.readLink === undefined) return undefined;
    return resolve(dirname(path), await fs.readLink(path));
  } catch (e) {
    if (e instanceof FsError) return undefined;
    throw e;
  }
}

/** How a path is shown to the model: relative to cwd when inside it, absolute otherwise. */
export function displayPath(cwd: string, absPath: string): string {
  const rel = relative(cwd, absPath);
  if (rel === "") return ".";
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return absPath;
  return rel;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] as number;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] as number;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      prev[j] = Math.min(up + 1, (prev[j - 1] as number) + 1, diag + cost);
      diag = up;
    }
  }
  return prev[b.length] as number;
}

/**
 * A "not found" message that helps the model recover: names the nearest existing directory and
 * its entries that look most like the missing name.
 */
async function describeMissing(
  fs: FsOps,
  absPath: string,
  options: { cwd: string; what?: string; hidden?: PlaceholderFilter },
): Promise<string> {
  const what = options.what ?? "File";
  const shown = displayPath(options.cwd, absPath);
  let dir = dirname(absPath);
  let wanted = basename(absPath);
  for (;;) {
    try {
      // A placeholder directory counts as missing too.
      if (await options.hidden?.hidesResolved(dir)) throw hiddenAsMissing(dir);
      const info = await fs.stat(dir);
      if (!info.isDirectory) {
        return `${what} not found: "${shown}" ("${displayPath(options.cwd, dir)}" is a file)`;
      }
      break;
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      const parent = dirname(dir);
      if (parent === dir) return `${what} not found: "${shown}"`;
      wanted = basename(dir);
      dir = parent;
    }
  }
  const names: string[] = [];
  try {
    for await (const entry of fs.readDir(dir)) {
      if (await options.hidden?.hides(join(dir, entry.name))) continue;
      names.push(entry.isDirectory ? `${entry.name}/` : entry.name);
      if (names.length >= 5000) break;
    }
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
    // A directory that cannot be listed (e.g. above a granted file) is not "empty".
    return `${what} not found: "${shown}"`;
  }
  const dirShown = displayPath(options.cwd, dir);
  const dirLabel = dirShown === "." ? "the working directory" : `"${dirShown}/"`;
  if (names.length === 0) return `${what} not found: "${shown}"; ${dirLabel} is empty`;
  const lower = wanted.toLowerCase();
  const scored = names
    .map((name) => {
      const bare = name.replace(/\/$/, "").toLowerCase();
      const d = editDistance(lower, bare);
      const related = bare.includes(lower) || lower.includes(bare) ||
        bare.split(".")[0] === lower.split(".")[0];
      return { name, score: related ? Math.min(d, 1) : d };
    })
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  const threshold = Math.max(2, Math.floor(wanted.length / 3));
  const close = scored.filter((s) => s.score <= threshold).slice(0, 5).map((s) => s.name);
  if (close.length > 0) {
    return `${what} not found: "${shown}"; similar names in ${dirLabel}: ${close.join(", ")}`;
  }
  const sample = [...names].sort((a, b) => a.localeCompare(b)).slice(0, 10);
  const more = names.length > sample.length ? `, … (${names.length} entries)` : "";
  return `${what} not found: "${shown}"; ${dirLabel} has: ${sample.join(", ")}${more}`;
}

/** A model-facing message for a failed filesystem operation on `absPath`. */
export async function fsFailure(
  fs: FsOps,
  e: FsError,
  options: {
    cwd: string;
    absPath: string;
    verb: string;
    what?: string;
    hidden?: PlaceholderFilter;
  },
): Promise<string> {
  const shown = displayPath(options.cwd, options.absPath);
  const head = `Cannot ${options.verb} "${shown}"`;
  switch (e.code) {
    case "not_found":
      return await describeMissing(fs, options.absPath, {
        cwd: options.cwd,
        ...(options.what === undefined ? {} : { what: options.what }),
        ...(options.hidden === undefined ? {} : { hidden: options.hidden }),
      });
    case "not_a_directory":
      return `${head}: a parent path is not a directory; check the path with ls`;
    case "is_a_directory":
      return options.verb === "read" || options.verb === "search"
        ? `${head}: it is a directory; use ls to list it`
        : `${head}: it is a directory; give the path of a file`;
    case "not_a_file":
      return `${head}: it is not a regular file (device, socket or FIFO)`;
    case "permission_denied":
      return `${head}: permission denied by the operating system`;
    case "not_granted":
      return `${head}: access is not granted for this run; ask the user to grant it`;
    case "protected":
      // The message names the protected path and the flag that allows writing it.
      return e.message;
    case "changed":
      return `Refused: "${shown}" changed while being opened (possible symlink race); ` +
        `try again once the file is stable`;
    case "too_large":
    case "io":
      return `${head}: ${e.message}`;
    default: {
      const never: never = e.code;
      return `${head}: ${String(never)}`;
    }
  }
}

/**
 * A resolver bound to a tool's cwd and home (`home`, else `fs.homeDir()`, looked up lazily; a
 * relative one is no home: it would mean another directory in each process).
 */
export function pathResolver(
  cwd: string,
  fs: FsOps,
  options: { home?: string | undefined } = {},
): (p: string) => string {
  return (p) => {
    const home = options.home ?? fs.homeDir?.();
    return resolvePath(
      cwd,
      p,
      home === undefined || !isAbsolute(home) ? {} : { home: resolve(home) },
    );
  };
}
