/** The grep tool: in-process regex search over a tree, ignore-aware, bounded and ordered. */
import { type Static, Type } from "@sinclair/typebox";
import { join } from "node:path";
import { createDenoFsOps } from "../sys/fs.ts";
import { globMatcher, walkTree, workspaceAncestors } from "./_ignore.ts";
import { BINARY_SNIFF_BYTES, LineMatcher, type MatchRow } from "./_lines.ts";
import {
  displayPath,
  fsFailure,
  type FsToolOptions,
  pathErrorsAsResults,
  pathResolver,
  realLocation,
} from "./_paths.ts";
import { byteLength, DEFAULT_MAX_BYTES, formatSize, markCutLine } from "./_truncate.ts";
import { FsError, type SyncFileHandle } from "./ops.ts";
import type { Tool, ToolOutput } from "./types.ts";

/** Arguments of grep. */
export const GrepParams = Type.Object({
  pattern: Type.String({
    description: "Regular expression (JavaScript syntax) or, with literal, plain text",
  }),
  path: Type.Optional(
    Type.String({ description: "File or directory to search (default: the working directory)" }),
  ),
  glob: Type.Optional(
    Type.String({
      description: "Only search files matching this glob, e.g. '*.ts' or 'src/**/*.test.ts'",
    }),
  ),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Case-insensitive match" })),
  literal: Type.Optional(Type.Boolean({ description: "Treat pattern as plain text, not a regex" })),
  context: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 50, description: "Lines of context around each match" }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, description: "Maximum number of matches (default 100)" }),
  ),
});
/** Validated grep arguments. */
export type GrepArgs = Static<typeof GrepParams>;

/** Serialisable options of grep (plus injectable fs). */
export interface GrepToolOptions extends FsToolOptions {
  /**
   * Files scanned at the same time (default 8) when `fs` has no synchronous fast path
   * (`openWalkedFileSync`); with one, files are read one after the other, which is faster.
   */
  concurrency?: number;
  /** Default match limit (default 100). */
  defaultLimit?: number;
  /** Byte budget of the output (default 51,200). */
  maxBytes?: number;
  /** Bytes read from a file at a time (default 1 MiB, at least 8 KiB). */
  chunkBytes?: number;
}

/** Matched and context lines longer than this are cut with a marker. */
const GREP_MAX_LINE_CHARS = 500;
/** Characters of one line that are searched (bounded memory for minified files). */
const SCAN_LINE_CHARS = 256 * 1024;
/** Bytes read at a time: small files are read in one call, big ones in chunks of this size. */
const DEFAULT_CHUNK_BYTES = 1024 * 1024;
/** Synchronous scanning gives the event loop a turn at least this often (abort, other calls). */
const YIELD_EVERY_MS = 100;

interface FileResult {
  rel: string;
  rows: MatchRow[];
  matches: number;
}

type ScanOutcome = FileResult | "binary" | null;

/** Gives the event loop a turn when synchronous work has run long enough. */
type Pace = () => Promise<void>;

/** The compiled search: the per-line regex and the chunk-wide candidate finder. */
interface Search {
  line: RegExp;
  finder: RegExp | null;
  context: number;
}

/** JavaScript's `\s` without the LF: the whitespace a line can hold. */
const SPACE_NO_LF =
  "\\t\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";

/**
 * The pattern rewritten so that it can never consume an LF, and otherwise the same on text
 * without LFs (a line): `\s`, `\W`, `\D` and negated classes exclude the LF. Null when the
 * pattern has a construct this does not handle (escapes that may denote an LF, like `\n`, `\x0a`,
 * `\u000a`, octal or back references, `\s`/`\W`/`\D` or control escapes inside a class, literal
 * control characters). Without this, a chunk-wide search could backtrack across a whole chunk
 * (`[^;]*;` is quadratic in the chunk size) where line by line it stays bounded by the line.
 */
function lineBoundSource(source: string): string | null {
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f]/.test(source)) return null;
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === "\\") {
      const next = source[++i] ?? "";
      if (next === "d" || next === "w" || next === "S" || next === "B") {
        out += `\\${next}`;
      } else if (
        !inClass && (next === "b" || next === "t" || next === "r" || next === "v" || next === "f")
      ) {
        out += `\\${next}`; // an assertion or one character other than LF
      } else if (!inClass && next === "s") {
        out += `[${SPACE_NO_LF}]`;
      } else if (!inClass && (next === "W" || next === "D")) {
        out += `[^\\${next.toLowerCase()}\\n]`;
      } else if (!inClass && next === "x" && /^[0-9A-Fa-f]{2}$/.test(source.slice(i + 1, i + 3))) {
        // One character by its code (RegExp.escape writes these), but never the LF; in a class
        // it could be a range end, so classes keep the line-by-line search.
        const hex = source.slice(i + 1, i + 3);
        if (hex.toLowerCase() === "0a") return null;
        out += `\\x${hex}`;
        i += 2;
      } else if (/^[^0-9A-Za-z]$/.test(next)) {
        out += `\\${next}`; // an escaped printable character
      } else {
        return null;
      }
    } else if (inClass) {
      out += c;
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
      if (source[i + 1] === "^") {
        out += "[^\\n";
        i++;
      } else {
        out += c;
      }
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * The candidate finder for a line regex: the same pattern made unable to consume an LF, global
 * and multiline, run over many lines at once; or null to test every line. It finds a match
 * starting in every line the line regex matches (`^`, `$`, `\b` behave alike at line ends, and
 * the consumed characters are the same), except through lookarounds, which could see past the
 * line end: those patterns are tested line by line. Exported for tests.
 */
export function candidateFinder(source: string, ignoreCase: boolean): RegExp | null {
  if (/\(\?<?[=!]/.test(source)) return null;
  const bounded = lineBoundSource(source);
  if (bounded === null) return null;
  try {
    return new RegExp(bounded, ignoreCase ? "gim" : "gm");
  } catch (e) {
    // The rewrite of an exotic pattern did not compile: search it line by line.
    if (e instanceof SyntaxError) return null;
    throw e;
  }
}

function cut(text: string, fullLength: number): string {
  if (fullLength <= GREP_MAX_LINE_CHARS) return text;
  return markCutLine(text.slice(0, GREP_MAX_LINE_CHARS), fullLength);
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Creates the grep tool. */
export function createGrepTool(options: GrepToolOptions): Tool<typeof GrepParams> {
  const fs = options.fs ?? createDenoFsOps();
  const resolve = pathResolver(options.cwd, fs, { home: options.home });
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const defaultLimit = options.defaultLimit ?? 100;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const chunkBytes = Math.max(BINARY_SNIFF_BYTES, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);

  /**
   * Feeds a file's chunks to a LineMatcher: the first ones until the binary check has its 8 KB,
   * then the rest until the end, the cap, or an abort. A read that returns less than asked once
   * the size reported at open is reached is taken as the end (saves a read per file).
   */
  async function scanChunks(
    read: (into: Uint8Array) => number | null | Promise<number | null>,
    size: number,
    buf: Uint8Array,
    input: { rel: string; search: Search; cap: number; signal: AbortSignal; pace: Pace },
  ): Promise<ScanOutcome> {
    let filled = 0;
    let total = 0;
    let eof = false;
    while (filled < BINARY_SNIFF_BYTES) {
      const want = buf.length - filled;
      const n = await read(buf.subarray(filled));
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
    const { search, cap } = input;
    const matcher = new LineMatcher({
      line: search.line,
      finder: search.finder,
      context: search.context,
      cap,
      maxChars: SCAN_LINE_CHARS,
      format: cut,
    });
    if (!matcher.pushFirst(buf.subarray(0, filled))) return "binary";
    while (!eof && !matcher.done && !input.signal.aborted) {
      await input.pace();
      const n = await read(buf);
      if (n === null || n === 0) break;
      total += n;
      matcher.push(buf.subarray(0, n));
      if (size > 0 && n < buf.length && total >= size) break;
    }
    matcher.end();
    return matcher.matches === 0
      ? null
      : { rel: input.rel, rows: matcher.rows, matches: matcher.matches };
  }

  /** Scans a file through the synchronous fast path (walked, symlink-free paths only). */
  async function scanSync(
    openSync: (path: string) => SyncFileHandle,
    path: string,
    buf: Uint8Array,
    input: { rel: string; search: Search; cap: number; signal: AbortSignal; pace: Pace },
  ): Promise<ScanOutcome> {
    let handle: SyncFileHandle;
    try {
      handle = openSync(path);
    } catch (e) {
      if (e instanceof FsError) return null;
      throw e;
    }
    try {
      return await scanChunks((into) => handle.readSync(into), handle.info.size, buf, input);
    } catch (e) {
      if (e instanceof FsError) return null;
      throw e;
    } finally {
      handle.close();
    }
  }

  /** Scans a file through `FsOps.openFile` (any FsOps implementation). */
  async function scanAsync(
    path: string,
    input: { rel: string; search: Search; cap: number; signal: AbortSignal; pace: Pace },
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

  async function run(args: GrepArgs, outerSignal: AbortSignal): Promise<ToolOutput> {
    const fail = (output: string): ToolOutput => ({ isError: true, output });
    if (args.pattern === "") {
      return fail(
        "The pattern is empty, which would match every line; give the text or regular " +
          "expression to search for (use find to list files)",
      );
    }
    let search: Search;
    const context = args.context ?? 0;
    try {
      const source = args.literal ? RegExp.escape(args.pattern) : args.pattern;
      const ignoreCase = args.ignoreCase === true;
      search = {
        line: new RegExp(source, ignoreCase ? "i" : ""),
        finder: candidateFinder(source, ignoreCase),
        context,
      };
    } catch (e) {
      return fail(
        `Invalid regular expression "${args.pattern}": ${(e as Error).message}; escape special ` +
          `characters or set literal=true`,
      );
    }
    const limit = args.limit ?? defaultLimit;
    const abs = resolve(args.path ?? ".");
    let root: string;
    let rootInfo;
    try {
      root = await fs.realPath(abs);
      rootInfo = await fs.stat(root);
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return fail(
        await fsFailure(fs, e, { cwd: options.cwd, absPath: abs, verb: "search", what: "Path" }),
      );
    }
    const matcher = args.glob === undefined ? null : globMatcher(args.glob);
    const controller = new AbortController();
    const signal = AbortSignal.any([outerSignal, controller.signal]);
    const pending: Array<Promise<ScanOutcome>> = [];
    const out: string[] = [];
    let bytes = 0;
    let total = 0;
    let files = 0;
    let stop: "limit" | "bytes" | null = null;
    let lastYield = performance.now();
    // Synchronous scans block this thread: give the event loop a turn now and then.
    const pace: Pace = async () => {
      if (performance.now() - lastYield < YIELD_EVERY_MS) return;
      await yieldToEventLoop();
      lastYield = performance.now();
    };
    const openSync = fs.openWalkedFileSync?.bind(fs);
    // One read buffer for the whole call: synchronous scans run one file at a time.
    const syncBuf = openSync === undefined ? null : new Uint8Array(chunkBytes);
    const scan = (path: string, rel: string): Promise<ScanOutcome> => {
      const input = { rel, search, cap: limit, signal, pace };
      return openSync === undefined || syncBuf === null
        ? scanAsync(path, input)
        : scanSync(openSync, path, syncBuf, input);
    };
    const width = openSync === undefined ? concurrency : 1;

    const consume = (result: ScanOutcome): void => {
      if (result === null || result === "binary" || stop !== null) return;
      files++;
      const shown = displayPath(options.cwd, join(abs, result.rel));
      if (context > 0 && out.length > 0) out.push("--");
      let taken = 0;
      for (const row of result.rows) {
        if (row.kind === "match" && total >= limit) {
          stop = "limit";
          break;
        }
        const text = row.kind === "sep"
          ? "--"
          : row.kind === "match"
          ? `${shown}:${row.line}: ${row.text}`
          : `${shown}-${row.line}- ${row.text}`;
        const cost = byteLength(text) + 1;
        if (bytes + cost > maxBytes) {
          stop = "bytes";
          break;
        }
        out.push(text);
        bytes += cost;
        if (row.kind === "match") {
          total++;
          taken++;
        }
      }
      if (stop === null && total >= limit) stop = "limit";
      if (taken === 0 && out[out.length - 1] === "--") out.pop();
    };

    if (rootInfo.isDirectory) {
      const walker = walkTree(fs, root, {
        ancestors: await workspaceAncestors(fs, options.cwd, root),
        signal,
        pace,
      });
      for await (const entry of walker) {
        if (!entry.isFile) continue; // symlinks are not followed, like ripgrep
        if (matcher && !matcher(entry.rel)) continue;
        pending.push(scan(entry.path, entry.rel));
        while (pending.length >= width && stop === null) {
          consume(await (pending.shift() as Promise<ScanOutcome>));
        }
        if (stop !== null) break;
      }
      while (pending.length > 0 && stop === null) {
        consume(await (pending.shift() as Promise<ScanOutcome>));
      }
      controller.abort();
      await Promise.all(pending); // let aborted scans close their handles
    } else {
      const shown = displayPath(options.cwd, abs);
      const result = await scan(root, "");
      if (result === "binary") {
        return {
          output: `No matches: "${shown}" is a binary file, which grep skips; inspect it with ` +
            `bash instead (e.g. "strings" or "xxd")`,
          details: { matches: 0, binary: true },
        };
      }
      consume(result);
    }
    if (outerSignal.aborted) return fail("Search aborted");
    if (total === 0) {
      return {
        output: `No matches for "${args.pattern}" in "${displayPath(options.cwd, abs)}"` +
          (args.glob === undefined ? "" : ` (files matching "${args.glob}")`),
        details: { matches: 0 },
      };
    }
    let note = "";
    if (stop === "limit") {
      note = `[Reached the limit of ${limit} matches. Use limit=${limit * 2} for more, ` +
        `or narrow the pattern, path or glob.]`;
    } else if (stop === "bytes") {
      note = `[Output cut at ${formatSize(maxBytes)} after ${total} matches. Narrow the pattern, ` +
        `path or glob${context > 0 ? ", or use a smaller context" : ""}.]`;
    }
    return {
      output: note === "" ? out.join("\n") : `${out.join("\n")}\n\n${note}`,
      details: { matches: total, files, truncated: stop !== null },
    };
  }

  return {
    name: "grep",
    label: "Grep",
    description: "Search file contents with a regular expression (JavaScript syntax; set " +
      "literal=true for plain text). Respects .gitignore and .ignore files, skips .git and " +
      "binary files. Output lines are 'path:line: text' (context lines 'path-line- text'). " +
      `Returns at most ${defaultLimit} matches by default; a note says when more exist. ` +
      "Narrow with path and glob (e.g. '*.ts').",
    parameters: GrepParams,
    kind: "read",
    concurrencySafe: true,
    maxResultChars: maxBytes + 1000,
    async locations(args) {
      return [{
        access: "read",
        path: await realLocation(fs, resolve(args.path ?? "."), { followDangling: true }),
      }];
    },
    execute: pathErrorsAsResults(run),
  };
}
