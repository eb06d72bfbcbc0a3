/** The read tool: pages of text files by line, images as image blocks, bounded memory. */
import { type Static, Type } from "@sinclair/typebox";
import { BINARY_SNIFF_BYTES, LineReader, looksBinary } from "./lines.ts";
import {
  displayPath,
  fsFailure,
  type FsToolOptions,
  pathErrorsAsResults,
  pathResolver,
  realLocation,
} from "./paths.ts";
import {
  byteLength,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  formatSize,
  markCutLine,
} from "./truncate.ts";
import { type FileHandle, FsError } from "./ops.ts";
import { hiddenAsMissing, placeholderFilter } from "./placeholders.ts";
import type { Tool, ToolOutput } from "../agent/tool.ts";

/** Arguments of read. */
export const ReadParams = Type.Object({
  path: Type.String({ description: "File to read, relative to the working directory or absolute" }),
  offset: Type.Optional(
    Type.Integer({ minimum: 1, description: "1-based line number to start from (default 1)" }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, description: "Maximum number of lines to return (max 2000)" }),
  ),
});
/** Validated read arguments. */
export type ReadArgs = Static<typeof ReadParams>;

/** Serialisable options of read (plus injectable fs). */
export interface ReadToolOptions extends FsToolOptions {
  /** Line budget of one page (default 2000). */
  maxLines?: number;
  /** Byte budget of one page (default 51,200). */
  maxBytes?: number;
}

/** Lines longer than this are shortened with a marker giving their full length. */
const MAX_LINE_CHARS = 2000;
/** Images larger than this are described, not attached. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Above this size the total line count is not computed; the note gives the size instead. */
const COUNT_LINES_MAX_BYTES = 16 * 1024 * 1024;

/** The image MIME type from magic bytes, or null. */
function sniffImage(head: Uint8Array): string | null {
  const starts = (sig: number[], at = 0) => sig.every((b, i) => head[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (
    starts([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61
  ) {
    return "image/gif";
  }
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return null;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return btoa(binary);
}

/** Repairs `offset: 0` (a 0-based "from the start") to 1; other bad values fail validation. */
function prepareReadArguments(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const args = raw as Record<string, unknown>;
  return args.offset === 0 ? { ...args, offset: 1 } : raw;
}

/** Creates the read tool. */
export function createReadTool(options: ReadToolOptions): Tool<typeof ReadParams> {
  const fs = options.fs;
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const resolve = pathResolver(options.cwd, fs, { home: options.home });
  const hidden = placeholderFilter(fs, options.placeholders);

  async function run(args: ReadArgs): Promise<ToolOutput> {
    // The schema forbids these; guard anyway so a direct call cannot print "lines 0-1999".
    if (args.offset !== undefined && args.offset < 1) {
      return { isError: true, output: `Offset ${args.offset} is invalid: lines start at 1` };
    }
    if (args.limit !== undefined && args.limit < 1) {
      return { isError: true, output: `Limit ${args.limit} is invalid: give at least 1 line` };
    }
    const abs = resolve(args.path);
    const shown = displayPath(options.cwd, abs);
    let handle: FileHandle | undefined;
    try {
      // The sandbox's placeholder (an empty directory, mostly) is as missing as the path it holds.
      if (await hidden.hidesResolved(abs)) throw hiddenAsMissing(abs);
      handle = await fs.openFile(abs);
      const size = handle.info.size;
      const reader = new LineReader(handle, { maxChars: MAX_LINE_CHARS });
      const head = await reader.prefix(BINARY_SNIFF_BYTES);
      const mime = sniffImage(head);
      if (mime !== null) {
        if (size > MAX_IMAGE_BYTES) {
          return {
            output: `Read image file [${mime}]\n[Image is ${formatSize(size)}, over the ` +
              `${formatSize(MAX_IMAGE_BYTES)} limit; not attached.]`,
            details: { path: handle.path, mimeType: mime, size, attached: false },
          };
        }
        const bytes = await reader.prefix(MAX_IMAGE_BYTES + 1);
        const text = `Read image file [${mime}]`;
        return {
          output: text,
          content: [
            { type: "text", text },
            { type: "image", data: toBase64(bytes), mimeType: mime },
          ],
          details: { path: handle.path, mimeType: mime, size: bytes.length, attached: true },
        };
      }
      if (looksBinary(head)) {
        return {
          isError: true,
          output: `Cannot read "${shown}": binary file (${formatSize(size)}); inspect it with ` +
            `bash instead (e.g. "file" or "xxd | head")`,
        };
      }
      if (head.length === 0) {
        return { output: "(empty file)", details: { path: handle.path, totalLines: 0 } };
      }

      const start = args.offset ?? 1;
      const skipped = await reader.skip(start - 1);
      const userLimited = args.limit !== undefined && args.limit <= maxLines;
      const lineCap = Math.min(args.limit ?? maxLines, maxLines);
      const lines: string[] = [];
      let bytes = 0;
      let stop: "limit" | "lines" | "bytes" | "eof" = "eof";
      let pending = 0; // a line read but not shown
      for (;;) {
        if (lines.length >= lineCap) {
          stop = userLimited ? "limit" : "lines";
          break;
        }
        const line = await reader.next();
        if (line === null) break;
        const text = line.truncated ? markCutLine(line.text, line.length) : line.text;
        const cost = byteLength(text) + (lines.length > 0 ? 1 : 0);
        if (bytes + cost > maxBytes && lines.length > 0) {
          stop = "bytes";
          pending = 1;
          break;
        }
        lines.push(text);
        bytes += cost;
      }
      if (lines.length === 0) {
        const total = skipped;
        return {
          isError: true,
          output:
            `Offset ${start} is beyond end of file "${shown}" (${total} ${
              total === 1 ? "line" : "lines"
            } total); ` +
            `use an offset from 1 to ${total}`,
        };
      }
      const end = start + lines.length - 1;
      let total: number | null = null;
      let more: boolean;
      if (stop === "eof") {
        total = end;
        more = false;
      } else if (size <= COUNT_LINES_MAX_BYTES) {
        total = end + pending + (await reader.countRemaining());
        more = total > end;
      } else {
        more = pending > 0 || (await reader.next()) !== null;
      }
      let note = "";
      if (more) {
        const next = end + 1;
        if (stop === "limit") {
          note = total === null
            ? `[More lines in file (${formatSize(size)}). Use offset=${next} to continue.]`
            : `[${total - end} more ${
              total - end === 1 ? "line" : "lines"
            } in file. Use offset=${next} to continue.]`;
        } else {
          const of = total === null ? `a ${formatSize(size)} file` : `${total}`;
          const why = stop === "bytes" ? ` (${formatSize(maxBytes)} limit)` : "";
          note = `[Showing lines ${start}-${end} of ${of}${why}. Use offset=${next} to continue.]`;
        }
      }
      return {
        output: note === "" ? lines.join("\n") : `${lines.join("\n")}\n\n${note}`,
        details: {
          path: handle.path,
          startLine: start,
          endLine: end,
          ...(total === null ? {} : { totalLines: total }),
          truncated: more,
        },
      };
    } catch (e) {
      // Opening, and also any read of the page, may fail.
      if (!(e instanceof FsError)) throw e;
      return {
        isError: true,
        output: await fsFailure(fs, e, { cwd: options.cwd, absPath: abs, verb: "read", hidden }),
      };
    } finally {
      handle?.close();
    }
  }

  return {
    name: "read",
    label: "Read",
    description: `Read a file. Text comes back in pages of at most ${maxLines} lines or ` +
      `${formatSize(maxBytes)} (whichever is reached first); a note at the end says how to ` +
      `continue with offset. Lines longer than ${MAX_LINE_CHARS} characters are shortened. ` +
      `Images (PNG, JPEG, GIF, WebP) are returned as images. Binary files are refused. ` +
      `Use offset/limit to read a specific range of a large file.`,
    parameters: ReadParams,
    kind: "read",
    concurrencySafe: true,
    maxResultChars: maxBytes + 1000,
    prepareArguments: prepareReadArguments,
    async locations(args) {
      return [{
        access: "read",
        path: await realLocation(fs, resolve(args.path), { followDangling: true }),
      }];
    },
    execute: pathErrorsAsResults(run),
    prunedHint(args, result) {
      const details = result.details as { startLine?: unknown; endLine?: unknown } | undefined;
      const start = typeof details?.startLine === "number" ? details.startLine : args.offset;
      const end = typeof details?.endLine === "number" ? details.endLine : undefined;
      if (start === undefined || end === undefined) {
        return `Read ${JSON.stringify(args.path)} again if you need it.`;
      }
      return `Read ${JSON.stringify(args.path)} again with offset=${start} and limit=${
        end - start + 1
      } if you need these lines (the file may have changed since).`;
    },
  };
}
