/** The grep tool: in-process regex search over a tree, ignore-aware, bounded and ordered. */
import { type Static, Type } from "@sinclair/typebox";
import { join } from "node:path";
import type { Tool, ToolOutput } from "../../agent/tool.ts";
import { BINARY_SNIFF_BYTES } from "../lines.ts";
import { FsError } from "../ops.ts";
import {
  displayPath,
  fsFailure,
  type FsToolOptions,
  pathErrorsAsResults,
  pathResolver,
  realLocation,
} from "../paths.ts";
import { byteLength, DEFAULT_MAX_BYTES, formatSize } from "../truncate.ts";
import { hiddenAsMissing, placeholderFilter } from "../placeholders.ts";
import { globMatcher, workspaceAncestors } from "../walk.ts";
import { compileSearch, type Search, type SearchSpec } from "./pattern.ts";
import { createFileScanner, type Pace, type ScanOutcome } from "./scan.ts";
import type { ScanThreads } from "./threads.ts";
import { scanTree } from "./tree_scan.ts";

export type { ScanThreads } from "./threads.ts";

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
  /**
   * Helper threads that scan a big tree's files alongside (the tool Worker's entry point starts
   * them with the same file operations and permissions); without them grep uses one thread.
   */
  threads?: ScanThreads;
}

/** Bytes read at a time: small files are read in one call, big ones in chunks of this size. */
const DEFAULT_CHUNK_BYTES = 1024 * 1024;
/** Synchronous scanning gives the event loop a turn at least this often (abort, other calls). */
const YIELD_EVERY_MS = 100;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Creates the grep tool. */
export function createGrepTool(options: GrepToolOptions): Tool<typeof GrepParams> {
  const fs = options.fs;
  const resolve = pathResolver(options.cwd, fs, { home: options.home });
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const defaultLimit = options.defaultLimit ?? 100;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const chunkBytes = Math.max(BINARY_SNIFF_BYTES, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const hidden = placeholderFilter(fs, options.placeholders);

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
    const spec: SearchSpec = {
      pattern: args.pattern,
      literal: args.literal === true,
      ignoreCase: args.ignoreCase === true,
      context,
    };
    try {
      search = compileSearch(spec);
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
      if (await hidden.hides(root)) throw hiddenAsMissing(abs);
      rootInfo = await fs.stat(root);
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return fail(
        await fsFailure(fs, e, {
          cwd: options.cwd,
          absPath: abs,
          verb: "search",
          what: "Path",
          hidden,
        }),
      );
    }
    const matcher = args.glob === undefined ? null : globMatcher(args.glob);
    const signal = outerSignal;
    const out: string[] = [];
    let bytes = 0;
    let total = 0;
    let files = 0;
    let stop: "limit" | "bytes" | null = null;
    let lastYield = performance.now();
    // Synchronous scans block this thread: give the event loop a turn now and then.
    const pace: Pace = () => {
      if (performance.now() - lastYield < YIELD_EVERY_MS) return undefined;
      return yieldToEventLoop().then(() => {
        lastYield = performance.now();
      });
    };
    const scanner = createFileScanner(fs, { chunkBytes, concurrency });
    const scan = (path: string, rel: string): Promise<ScanOutcome> =>
      scanner.scan(path, { rel, search, cap: limit, signal, pace });

    /** Adds a file's rows to the output; true once the limit or the byte budget is reached. */
    const consume = (result: ScanOutcome): boolean => {
      if (result === null || result === "binary" || stop !== null) return stop !== null;
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
      return stop !== null;
    };

    let threads = 0;
    if (rootInfo.isDirectory) {
      threads = await scanTree({
        fs,
        root,
        ancestors: await workspaceAncestors(fs, options.cwd, root),
        glob: matcher,
        signal,
        pace,
        hidden,
        scanHere: scan,
        width: scanner.width,
        threads: options.threads,
        request: { spec, cap: limit, chunkBytes },
        consume,
      });
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
      details: {
        matches: total,
        files,
        truncated: stop !== null,
        ...(threads > 0 ? { threads } : {}),
      },
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
