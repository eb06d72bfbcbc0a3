/**
 * Reading files for grep: each file in chunks (one read for a small file) into a LineMatcher,
 * binary files recognised by their first 8 KB, through the synchronous fast path when the
 * filesystem has one.
 */
import { BINARY_SNIFF_BYTES } from "../lines.ts";
import { FsError, type FsOps, type SyncFileHandle } from "../ops.ts";
import { markCutLine } from "../truncate.ts";
import { LineMatcher, type MatchRow } from "./line_matcher.ts";
import type { Search } from "./pattern.ts";

/** Matched and context lines longer than this are cut with a marker. */
const GREP_MAX_LINE_CHARS = 500;
/** Characters of one line that are searched (bounded memory for minified files). */
const SCAN_LINE_CHARS = 256 * 1024;

/** The matches found in one file. */
export interface FileResult {
  rel: string;
  rows: MatchRow[];
  matches: number;
}

/** A file's matches; "binary" for a binary file; null for no match or an unreadable file. */
export type ScanOutcome = FileResult | "binary" | null;

/**
 * Gives the event loop a turn when synchronous work has run long enough: a promise to wait on
 * then, else undefined (nothing to wait for, not even a microtask).
 */
export type Pace = () => Promise<void> | undefined;

/** What scanning one file needs besides its path. */
export interface ScanTarget {
  /** The file's path relative to the search root, for the result. */
  rel: string;
  search: Search;
  /** Matches to find at most. */
  cap: number;
}

/** What scanning one file on the calling thread needs: also when to stop and give way. */
export interface ScanInput extends ScanTarget {
  signal: AbortSignal;
  pace: Pace;
}

/** Scans the files of one grep call. */
export interface FileScanner {
  /** Files scanned at the same time (1 on the synchronous path, which reuses one buffer). */
  width: number;
  scan(path: string, input: ScanInput): Promise<ScanOutcome>;
}

/**
 * The scanner of one grep call: with `fs.openWalkedFileSync`, files are read one after the other
 * into one buffer (faster); without it, through `fs.openFile`, `concurrency` files at a time.
 */
export function createFileScanner(
  fs: FsOps,
  options: { chunkBytes: number; concurrency: number },
): FileScanner {
  const openSync = fs.openWalkedFileSync?.bind(fs);
  if (openSync === undefined) {
    return {
      width: options.concurrency,
      scan: (path, input) => scanAsync(fs, path, options.chunkBytes, input),
    };
  }
  // One read buffer for the whole call: synchronous scans run one file at a time.
  const buf = new Uint8Array(options.chunkBytes);
  return { width: 1, scan: (path, input) => scanSync(openSync, path, buf, input) };
}

function cut(text: string, fullLength: number): string {
  if (fullLength <= GREP_MAX_LINE_CHARS) return text;
  return markCutLine(text.slice(0, GREP_MAX_LINE_CHARS), fullLength);
}

function newMatcher(input: ScanTarget): LineMatcher {
  const { search, cap } = input;
  return new LineMatcher({
    line: search.line,
    finder: search.finder,
    needle: search.needle,
    context: search.context,
    cap,
    maxChars: SCAN_LINE_CHARS,
    format: cut,
  });
}

function outcome(matcher: LineMatcher, rel: string): ScanOutcome {
  return matcher.matches === 0 ? null : { rel, rows: matcher.rows, matches: matcher.matches };
}

/**
 * Feeds a file's chunks to a LineMatcher: the first ones until the binary check has its 8 KB,
 * then the rest until the end, the cap, or an abort. A read that returns less than asked once
 * the size reported at open is reached is taken as the end (saves a read per file); with `size`
 * 0 (unknown) the end is the read that returns nothing.
 */
async function scanChunks(
  read: (into: Uint8Array) => number | null | Promise<number | null>,
  size: number,
  buf: Uint8Array,
  input: ScanInput,
): Promise<ScanOutcome> {
  // Reads and turns are awaited only when they are promises: a synchronous read (most files
  // are one) then costs no microtask.
  let filled = 0;
  let total = 0;
  let eof = false;
  while (filled < BINARY_SNIFF_BYTES) {
    const want = buf.length - filled;
    let n = read(buf.subarray(filled));
    if (n instanceof Promise) n = await n;
    if (n === null || n === 0) {
      eof = true;
      break;
    }
    filled += n;
    total += n;
    if (size > 0 && n < want && total >= size) {
      eof = true;
      break;
    }
  }
  const matcher = newMatcher(input);
  if (!matcher.pushFirst(buf.subarray(0, filled))) return "binary";
  while (!eof && !matcher.done && !input.signal.aborted) {
    const turn = input.pace();
    if (turn !== undefined) await turn;
    let n = read(buf);
    if (n instanceof Promise) n = await n;
    if (n === null || n === 0) break;
    total += n;
    matcher.push(buf.subarray(0, n));
    if (size > 0 && n < buf.length && total >= size) break;
  }
  matcher.end();
  return outcome(matcher, input.rel);
}

/**
 * `scanChunks` without a turn of the event loop, for a thread that only scans (grep's helper
 * threads): nothing else waits on it, and the call that wants it stopped ends the thread.
 */
function scanChunksSync(
  read: (into: Uint8Array) => number | null,
  buf: Uint8Array,
  input: ScanTarget,
): ScanOutcome {
  let filled = 0;
  let eof = false;
  while (filled < BINARY_SNIFF_BYTES) {
    const n = read(buf.subarray(filled));
    if (n === null || n === 0) {
      eof = true;
      break;
    }
    filled += n;
  }
  const matcher = newMatcher(input);
  if (!matcher.pushFirst(buf.subarray(0, filled))) return "binary";
  while (!eof && !matcher.done) {
    const n = read(buf);
    if (n === null || n === 0) break;
    matcher.push(buf.subarray(0, n));
  }
  matcher.end();
  return outcome(matcher, input.rel);
}

/** What `scanWalkedFileSync` needs besides the path: how to open it, and a buffer to read into. */
export interface WalkedScanInput extends ScanTarget {
  openSync: (path: string) => SyncFileHandle;
  buf: Uint8Array;
}

/**
 * Scans a walked file synchronously through `FsOps.openWalkedFileSync`, to its end (a helper
 * thread's loop). Unreadable files count as no match, like everywhere in grep.
 */
export function scanWalkedFileSync(path: string, input: WalkedScanInput): ScanOutcome {
  const { openSync, buf } = input;
  let handle: SyncFileHandle;
  try {
    handle = openSync(path);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  }
  try {
    return scanChunksSync((into) => handle.readSync(into), buf, input);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  } finally {
    handle.close();
  }
}

/** Scans a file through the synchronous fast path (walked, symlink-free paths only). */
async function scanSync(
  openSync: (path: string) => SyncFileHandle,
  path: string,
  buf: Uint8Array,
  input: ScanInput,
): Promise<ScanOutcome> {
  let handle: SyncFileHandle;
  try {
    handle = openSync(path);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  }
  try {
    // The size is not asked for: a confined open learns it only by an extra call.
    return await scanChunks((into) => handle.readSync(into), 0, buf, input);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  } finally {
    handle.close();
  }
}

/** Scans a file through `FsOps.openFile` (any FsOps implementation). */
async function scanAsync(
  fs: FsOps,
  path: string,
  chunkBytes: number,
  input: ScanInput,
): Promise<ScanOutcome> {
  let handle;
  try {
    handle = await fs.openFile(path);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  }
  try {
    const size = handle.info.size;
    // One read for a small file (size + 1 sees the end), bounded chunks for a big one.
    const buf = new Uint8Array(Math.min(chunkBytes, Math.max(BINARY_SNIFF_BYTES, size + 1)));
    const h = handle;
    return await scanChunks((into) => h.read(into), size, buf, input);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  } finally {
    handle.close();
  }
}
