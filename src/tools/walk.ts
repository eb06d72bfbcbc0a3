/**
 * The shared tree walker of grep and find: depth-first in name order, honouring .gitignore and
 * .ignore files (nested too, and those of parent directories up to the workspace), skipping .git
 * and the sandbox's unused placeholders.
 */
import ignore from "ignore";
// @ts-types="@types/picomatch"
import picomatch from "picomatch";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { type DirEntry, FsError, type FsOps } from "./ops.ts";
import type { PlaceholderFilter } from "./placeholders.ts";

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
  /**
   * Called after every batch of entries (see `walkTreeBatches`) to give the event loop a turn when
   * due (synchronous listings never wait); by default the walk yields to timers every 50 ms.
   */
  pace?: () => Promise<void>;
  /** Called for directories that could not be listed (e.g. not granted); the walk goes on. */
  onSkip?: (path: string, error: FsError) => void;
  /** The sandbox's placeholders: skipped while they are unused (src/tools/placeholders.ts). */
  hidden?: PlaceholderFilter;
}

const IGNORE_FILES = [".gitignore", ".ignore"];
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/** Time the walk may run without giving the event loop a turn (synchronous listings). */
const YIELD_EVERY_MS = 50;

type Ignore = ReturnType<typeof ignore>;
type IgnoreResult = ReturnType<Ignore["test"]>;

interface Level {
  dir: string;
  /** `dir` plus a trailing separator: paths below `dir` start with it. */
  prefix: string;
  ig: Ignore;
  /**
   * Every pattern matches by a path's last segment (none has a "/" before its end other than a
   * leading one, "**" or a backslash): entries are then tested by name, with their directory's
   * result carried down the walk, instead of the ignore package re-deriving the parents from each
   * whole path (its main cost). Same answers; anything less plain is tested by whole paths.
   */
  byName: boolean;
  /**
   * For a `byName` level, the rules that can match below its own directory's entries: all but
   * the anchored ones (a leading "/" matches only there; a rule that cannot match a path changes
   * nothing about it).
   */
  deep: Ignore;
}

/** How the patterns of an ignore file match (see Level): null when not all by name. */
function nameRules(text: string): { anchored: boolean } | null {
  let anchored = false;
  for (const line of text.split(/\r?\n/)) {
    const t = line.trimEnd();
    if (t === "" || t.startsWith("#")) continue;
    let p = t.startsWith("!") ? t.slice(1) : t;
    if (p.includes("\\") || p.includes("**")) return null;
    if (p.startsWith("/")) {
      anchored = true;
      p = p.slice(1);
    }
    const slash = p.indexOf("/");
    if (p === "" || p === "/" || (slash !== -1 && slash !== p.length - 1)) return null;
  }
  return { anchored };
}

/** An ignore file without its anchored patterns (those with a leading "/", maybe negated). */
function withoutAnchored(text: string): string {
  return text.split(/\r?\n/).filter((line) => !/^!?\//.test(line)).join("\n");
}

function toPosix(p: string): string {
  return sep === "/" ? p : p.split(sep).join("/");
}

function withSep(dir: string): string {
  return dir.endsWith(sep) ? dir : dir + sep;
}

async function loadLevel(fs: FsOps, dir: string, names: Set<string>): Promise<Level | null> {
  let ig: Ignore | null = null;
  let byName = true;
  let anchored = false;
  const texts: string[] = [];
  for (const file of IGNORE_FILES) {
    if (!names.has(file)) continue;
    try {
      const bytes = await fs.readFile(join(dir, file), { maxBytes: MAX_IGNORE_FILE_BYTES });
      const text = new TextDecoder().decode(bytes);
      ig ??= ignore();
      ig.add(text);
      texts.push(text);
      const rules = nameRules(text);
      byName &&= rules !== null;
      anchored ||= rules?.anchored === true;
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
    }
  }
  if (ig === null) return null;
  let deep = ig;
  if (byName && anchored) {
    deep = ignore();
    for (const text of texts) deep.add(withoutAnchored(text));
  }
  return { dir, prefix: withSep(dir), ig, byName, deep };
}

/** True when a posix relative path leaves its base ("..", "../x"); a name like "..env" does not. */
function isOutside(rel: string): boolean {
  return rel === ".." || rel.startsWith("../") || rel.startsWith("/");
}

/** The ignore package's answer for `path` at `level` by its whole relative path (null: none). */
function testWhole(level: Level, path: string, isDir: boolean): IgnoreResult | null {
  // Levels are usually ancestors of the path: slicing is much cheaper than path.relative.
  const rel = path.startsWith(level.prefix)
    ? toPosix(path.slice(level.prefix.length))
    : toPosix(relative(level.dir, path));
  if (rel === "" || isOutside(rel)) return null;
  return level.ig.test(isDir ? `${rel}/` : rel);
}

/** True when the rules of `levels` (outermost first) ignore `path`; deeper rules win. */
function isIgnored(levels: Level[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const level of levels) {
    const result = testWhole(level, path, isDir);
    if (result === null) continue;
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

/**
 * Whether the entry `name` (at `path`) of `frame` is ignored; for a directory, `results` gets its
 * answer at each level (what its own frame carries, see Frame.chain).
 */
function isEntryIgnored(
  frame: Frame,
  entry: { name: string; path: string; isDir: boolean },
  results: Array<IgnoreResult | null> | null,
): boolean {
  let ignored = false;
  const { levels, chain } = frame;
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i] as Level;
    let result: IgnoreResult | null;
    if (level.byName) {
      // As the package does: a directory ignored at this level decides for all below it.
      const parent = chain[i] ?? null;
      const rules = frame.prefix === level.prefix ? level.ig : level.deep;
      result = parent !== null && parent.ignored
        ? parent
        : rules.test(entry.isDir ? `${entry.name}/` : entry.name);
    } else {
      result = testWhole(level, entry.path, entry.isDir);
    }
    if (results !== null) results[i] = result;
    if (result === null) continue;
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

async function listNames(fs: FsOps, dir: string): Promise<DirEntry[]> {
  let entries: DirEntry[];
  if (fs.readDirSync !== undefined) {
    entries = fs.readDirSync(dir);
  } else {
    entries = [];
    for await (const entry of fs.readDir(dir)) entries.push(entry);
  }
  // Code-point order keeps results stable across platforms and locales.
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries;
}

/** A directory being walked: its sorted entries, the next one to visit, and its ignore rules. */
interface Frame {
  dir: string;
  /** `dir` plus a trailing separator: the prefix of its entries' paths. */
  prefix: string;
  /** `dir` relative to the walk root, "/"-separated ("" for the root). */
  rel: string;
  entries: DirEntry[];
  next: number;
  levels: Level[];
  /**
   * The ignore package's answer for `dir` itself at each of `levels` (null at the level of `dir`
   * itself); the name-tested levels (Level.byName) need it for what lies below.
   */
  chain: Array<IgnoreResult | null>;
}

/** Entries `walkTreeBatches` yields at most at once (bounds the work between two yields). */
const MAX_BATCH = 1024;

/**
 * Walks `root` (a real directory path) lazily, depth-first in name order; symlinks are yielded,
 * never followed. An explicit stack keeps one generator level whatever the depth.
 */
export async function* walkTree(
  fs: FsOps,
  root: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkEntry> {
  for await (const batch of walkTreeBatches(fs, root, options)) yield* batch;
}

/**
 * `walkTree` in batches: consecutive entries of one directory (at most 1024), a batch ending with
 * the directory the walk enters next. One `pace` call per batch, and none of the per-entry cost
 * of an async generator: the form for callers that handle many entries (grep).
 */
export async function* walkTreeBatches(
  fs: FsOps,
  root: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkEntry[]> {
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
  // A root the caller named although an outer rule ignores it (e.g. node_modules) is searched,
  // like ripgrep does: those outer rules would otherwise hide everything below it.
  if (isIgnored(levels, root, true)) {
    const ignoring = levels.filter((level) => isIgnored([level], root, true));
    levels.splice(0, levels.length, ...levels.filter((level) => !ignoring.includes(level)));
  }
  const enter = async (
    dir: string,
    rel: string,
    outer: Level[],
    outerChain: Array<IgnoreResult | null>,
  ): Promise<Frame | null> => {
    let entries;
    try {
      entries = await listNames(fs, dir);
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      options.onSkip?.(dir, e);
      return null;
    }
    let level: Level | null = null;
    if (entries.some((e) => IGNORE_FILES.includes(e.name))) {
      level = await loadLevel(fs, dir, new Set(entries.map((e) => e.name)));
    }
    const levels = level ? [...outer, level] : outer;
    const chain = level ? [...outerChain, null] : outerChain;
    return { dir, prefix: withSep(dir), rel, entries, next: 0, levels, chain };
  };
  const { signal, hidden } = options;
  if (signal?.aborted) return;
  const stack: Frame[] = [];
  // The root's own answers at the levels above it, from its whole path.
  const rootChain = levels.map((level) => testWhole(level, root, true));
  const top = await enter(root, "", levels, rootChain);
  if (top !== null) stack.push(top);
  let lastYield = performance.now();
  while (stack.length > 0) {
    if (signal?.aborted) return;
    const frame = stack[stack.length - 1] as Frame;
    const batch: WalkEntry[] = [];
    let child: WalkEntry | null = null;
    let childChain: Array<IgnoreResult | null> = [];
    while (frame.next < frame.entries.length && batch.length < MAX_BATCH) {
      const entry = frame.entries[frame.next++] as DirEntry;
      if (entry.isDirectory && entry.name === ".git") continue;
      const path = frame.prefix + entry.name;
      if (hidden?.names(path) && await hidden.hides(path)) continue;
      const results = entry.isDirectory
        ? new Array<IgnoreResult | null>(frame.levels.length)
        : null;
      const tested = { name: entry.name, path, isDir: entry.isDirectory };
      if (isEntryIgnored(frame, tested, results)) continue;
      const item: WalkEntry = {
        path,
        rel: frame.rel === "" ? entry.name : `${frame.rel}/${entry.name}`,
        isFile: entry.isFile,
        isDirectory: entry.isDirectory,
        isSymlink: entry.isSymlink,
      };
      if (entry.isDirectory) {
        if (options.includeDirs) batch.push(item);
        child = item;
        childChain = results as Array<IgnoreResult | null>;
        break;
      }
      batch.push(item);
    }
    if (child === null && frame.next >= frame.entries.length) stack.pop();
    if (batch.length > 0) yield batch;
    if (child !== null) {
      if (signal?.aborted) return;
      const next = await enter(child.path, child.rel, frame.levels, childChain);
      if (next !== null) stack.push(next);
    }
    // Synchronous listings never wait: give timers and messages (e.g. an abort) a turn.
    if (options.pace !== undefined) {
      await options.pace();
    } else if (performance.now() - lastYield >= YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      lastYield = performance.now();
    }
  }
}

/**
 * The directories whose ignore files apply above a walk `root`: from the workspace `cwd` (its
 * real path when it resolves) down to the parent of `root`; none when root is outside it.
 */
export async function workspaceAncestors(fs: FsOps, cwd: string, root: string): Promise<string[]> {
  let top = cwd;
  try {
    top = await fs.realPath(cwd);
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
  }
  return ancestorsBetween(top, root);
}

/**
 * A matcher of walk-relative paths for a tool's glob: a glob without "/" matches names at any
 * depth, one with "/" the whole relative path; dotfiles included.
 */
export function globMatcher(glob: string): (rel: string) => boolean {
  return picomatch(glob, { dot: true, basename: !glob.includes("/") });
}

/** Directories from `top` (inclusive) down to the parent of `root`, when root is inside top. */
function ancestorsBetween(top: string, root: string): string[] {
  const rel = toPosix(relative(top, root));
  if (rel === "" || isOutside(rel) || isAbsolute(rel)) return [];
  const dirs: string[] = [];
  for (let d = dirname(root);; d = dirname(d)) {
    dirs.unshift(d);
    if (d === top || dirname(d) === d) break;
  }
  return dirs;
}
