/**
 * The shared tree walker of grep and find: depth-first in name order, honouring .gitignore and
 * .ignore files (nested too, and those of parent directories up to the workspace), skipping .git.
 */
import ignore from "ignore";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { FsError, type FsOps } from "./ops.ts";

/** One entry found by the walk. */
export interface WalkEntry {
  /** Absolute path under the (real) walk root. */
  path: string;
  /** Path relative to the walk root, with "/" separators. */
  rel: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
}

/** Options of `walkTree`. */
export interface WalkOptions {
  /** Directories above the root whose ignore files also apply, outermost first. */
  ancestors?: string[];
  /** Yield directories too (after deciding they are not ignored, before their contents). */
  includeDirs?: boolean;
  signal?: AbortSignal;
  /** Called for directories that could not be listed (e.g. not granted); the walk goes on. */
  onSkip?: (path: string, error: FsError) => void;
}

const IGNORE_FILES = [".gitignore", ".ignore"];
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

interface Level {
  dir: string;
  ig: ReturnType<typeof ignore>;
}

function toPosix(p: string): string {
  return sep === "/" ? p : p.split(sep).join("/");
}

async function loadLevel(fs: FsOps, dir: string, names: Set<string>): Promise<Level | null> {
  let ig: ReturnType<typeof ignore> | null = null;
  for (const file of IGNORE_FILES) {
    if (!names.has(file)) continue;
    try {
      const bytes = await fs.readFile(join(dir, file), { maxBytes: MAX_IGNORE_FILE_BYTES });
      ig ??= ignore();
      ig.add(new TextDecoder().decode(bytes));
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
    }
  }
  return ig === null ? null : { dir, ig };
}

/** True when a posix relative path leaves its base ("..", "../x"); a name like "..env" does not. */
function isOutside(rel: string): boolean {
  return rel === ".." || rel.startsWith("../") || rel.startsWith("/");
}

/** True when the rules of `levels` (outermost first) ignore `path`; deeper rules win. */
function isIgnored(levels: Level[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const level of levels) {
    const rel = toPosix(relative(level.dir, path));
    if (rel === "" || isOutside(rel)) continue;
    const result = level.ig.test(isDir ? `${rel}/` : rel);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

async function listNames(fs: FsOps, dir: string) {
  const entries = [];
  for await (const entry of fs.readDir(dir)) entries.push(entry);
  // Code-point order keeps results stable across platforms and locales.
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries;
}

/** Walks `root` (a real directory path) lazily; symlinks are yielded, never followed. */
export async function* walkTree(
  fs: FsOps,
  root: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkEntry> {
  const levels: Level[] = [];
  for (const dir of options.ancestors ?? []) {
    try {
      const names = new Set<string>();
      for await (const entry of fs.readDir(dir)) {
        if (IGNORE_FILES.includes(entry.name)) names.add(entry.name);
      }
      const level = await loadLevel(fs, dir, names);
      if (level) levels.push(level);
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
    }
  }
  yield* walkDir(fs, root, root, levels, options);
}

async function* walkDir(
  fs: FsOps,
  root: string,
  dir: string,
  levels: Level[],
  options: WalkOptions,
): AsyncGenerator<WalkEntry> {
  if (options.signal?.aborted) return;
  let entries;
  try {
    entries = await listNames(fs, dir);
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
    options.onSkip?.(dir, e);
    return;
  }
  const level = await loadLevel(fs, dir, new Set(entries.map((e) => e.name)));
  const active = level ? [...levels, level] : levels;
  for (const entry of entries) {
    if (options.signal?.aborted) return;
    if (entry.isDirectory && entry.name === ".git") continue;
    const path = join(dir, entry.name);
    if (isIgnored(active, path, entry.isDirectory)) continue;
    const item: WalkEntry = {
      path,
      rel: toPosix(relative(root, path)),
      isFile: entry.isFile,
      isDirectory: entry.isDirectory,
      isSymlink: entry.isSymlink,
    };
    if (entry.isDirectory) {
      if (options.includeDirs) yield item;
      yield* walkDir(fs, root, path, active, options);
    } else {
      yield item;
    }
  }
}

/** Directories from `top` (inclusive) down to the parent of `root`, when root is inside top. */
export function ancestorsBetween(top: string, root: string): string[] {
  const rel = toPosix(relative(top, root));
  if (rel === "" || isOutside(rel) || isAbsolute(rel)) return [];
  const dirs: string[] = [];
  for (let d = dirname(root);; d = dirname(d)) {
    dirs.unshift(d);
    if (d === top || dirname(d) === d) break;
  }
  return dirs;
}
