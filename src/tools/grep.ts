/** The grep tool: in-process regex search over a tree, ignore-aware, bounded and ordered. */
import { type Static, Type } from "@sinclair/typebox";
// @ts-types="@types/picomatch"
import picomatch from "picomatch";
import { join } from "node:path";
import { createDenoFsOps } from "../sys/fs.ts";
import { ancestorsBetween, walkTree } from "./_ignore.ts";
import { BINARY_SNIFF_BYTES, LineReader, looksBinary } from "./_lines.ts";
import {
  displayPath,
  fsFailure,
  pathErrorsAsResults,
  pathResolver,
  realLocation,
} from "./_paths.ts";
import { byteLength, DEFAULT_MAX_BYTES, formatSize } from "./_truncate.ts";
import { FsError, type FsOps } from "./ops.ts";
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
export interface GrepToolOptions {
  cwd: string;
  home?: string;
  fs?: FsOps;
  /** Files scanned at the same time (default 8). */
  concurrency?: number;
  /** Default match limit (default 100). */
  defaultLimit?: number;
  /** Byte budget of the output (default 51,200). */
  maxBytes?: number;
}

/** Matched and context lines longer than this are cut with a marker. */
export const GREP_MAX_LINE_CHARS = 500;
/** Characters of one line that are searched (bounded memory for minified files). */
const SCAN_LINE_CHARS = 256 * 1024;

type Row = { kind: "match" | "context"; line: number; text: string } | { kind: "sep" };

interface FileResult {
  shown: string;
  rows: Row[];
  matches: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function cut(text: string, fullLength: number): string {
  if (fullLength <= GREP_MAX_LINE_CHARS) return text;
  return `${
    text.slice(0, GREP_MAX_LINE_CHARS)
  }… [line truncated, ${fullLength} characters in full]`;
}

/** Creates the grep tool. */
export function createGrepTool(options: GrepToolOptions): Tool<typeof GrepParams> {
  const fs = options.fs ?? createDenoFsOps();
  const resolve = pathResolver(options.cwd, fs, { home: options.home });
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const defaultLimit = options.defaultLimit ?? 100;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;

  async function scanFile(
    realPath: string,
    shown: string,
    regex: RegExp,
    context: number,
    cap: number,
    signal: AbortSignal,
  ): Promise<FileResult | "binary" | null> {
    let handle;
    try {
      handle = await fs.openFile(realPath);
    } catch (e) {
      if (e instanceof FsError) return null;
      throw e;
    }
    try {
      const reader = new LineReader(handle, { maxChars: SCAN_LINE_CHARS });
      if (looksBinary(await reader.prefix(BINARY_SNIFF_BYTES))) return "binary";
      const rows: Row[] = [];
      const before: Array<{ line: number; text: string }> = [];
      let matches = 0;
      let after = 0;
      let lastRow = 0;
      for (let n = 1;; n++) {
        if (signal.aborted) break;
        const line = await reader.next();
        if (line === null) break;
        const isMatch = matches < cap && regex.test(line.text);
        if (isMatch) {
          const firstContext = before[0]?.line ?? n;
          if (context > 0 && lastRow > 0 && firstContext > lastRow + 1) rows.push({ kind: "sep" });
          for (const b of before) rows.push({ kind: "context", ...b });
          before.length = 0;
          rows.push({ kind: "match", line: n, text: cut(line.text, line.length) });
          matches++;
          lastRow = n;
          after = context;
        } else if (after > 0) {
          rows.push({ kind: "context", line: n, text: cut(line.text, line.length) });
          lastRow = n;
          after--;
        } else if (matches >= cap) {
          break;
        } else if (context > 0) {
          before.push({ line: n, text: cut(line.text, line.length) });
          if (before.length > context) before.shift();
        }
      }
      return matches === 0 ? null : { shown, rows, matches };
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
    let regex: RegExp;
    try {
      regex = new RegExp(
        args.literal ? escapeRegExp(args.pattern) : args.pattern,
        args.ignoreCase ? "i" : "",
      );
    } catch (e) {
      return fail(
        `Invalid regular expression "${args.pattern}": ${(e as Error).message}; escape special ` +
          `characters or set literal=true`,
      );
    }
    const limit = args.limit ?? defaultLimit;
    const context = args.context ?? 0;
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
    let matcher: ((rel: string) => boolean) | null = null;
    if (args.glob !== undefined) {
      matcher = picomatch(args.glob, { dot: true, basename: !args.glob.includes("/") });
    }
    const controller = new AbortController();
    const signal = AbortSignal.any([outerSignal, controller.signal]);
    const pending: Array<Promise<FileResult | "binary" | null>> = [];
    const out: string[] = [];
    let bytes = 0;
    let total = 0;
    let files = 0;
    let stop: "limit" | "bytes" | null = null;

    const consume = (result: FileResult | "binary" | null): void => {
      if (result === null || result === "binary" || stop !== null) return;
      files++;
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
          ? `${result.shown}:${row.line}: ${row.text}`
          : `${result.shown}-${row.line}- ${row.text}`;
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
      let realCwd = options.cwd;
      try {
        realCwd = await fs.realPath(options.cwd);
      } catch (e) {
        if (!(e instanceof FsError)) throw e;
      }
      const walker = walkTree(fs, root, { ancestors: ancestorsBetween(realCwd, root), signal });
      for await (const entry of walker) {
        if (!entry.isFile) continue; // symlinks are not followed, like ripgrep
        if (matcher && !matcher(entry.rel)) continue;
        const shown = displayPath(options.cwd, join(abs, entry.rel));
        pending.push(scanFile(entry.path, shown, regex, context, limit, signal));
        while (pending.length >= concurrency && stop === null) {
          consume(await (pending.shift() as Promise<FileResult | "binary" | null>));
        }
        if (stop !== null) break;
      }
      while (pending.length > 0 && stop === null) {
        consume(await (pending.shift() as Promise<FileResult | "binary" | null>));
      }
      controller.abort();
      await Promise.all(pending); // let aborted scans close their handles
    } else {
      const shown = displayPath(options.cwd, abs);
      const result = await scanFile(root, shown, regex, context, limit, signal);
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
      return [{ access: "read", path: await realLocation(fs, resolve(args.path ?? ".")) }];
    },
    execute: pathErrorsAsResults(run),
  };
}
