/** The edit tool: exact, unique, non-overlapping replacements applied all-or-nothing. */
import { type Static, Type } from "@sinclair/typebox";
import { createTwoFilesPatch } from "diff";
import { looksBinary } from "./lines.ts";
import {
  displayPath,
  fsFailure,
  type FsToolOptions,
  pathErrorsAsResults,
  pathResolver,
  realLocation,
} from "./paths.ts";
import { formatSize } from "./truncate.ts";
import { FsError } from "./ops.ts";
import type { Tool, ToolOutput } from "../agent/tool.ts";

/** One replacement. */
export const EditItem = Type.Object({
  oldText: Type.String({
    description: "Exact text to replace; must occur exactly once in the original file",
  }),
  newText: Type.String({ description: "Replacement text" }),
});

/** Arguments of edit. */
export const EditParams = Type.Object({
  path: Type.String({ description: "File to edit, relative to the working directory or absolute" }),
  edits: Type.Array(EditItem, {
    minItems: 1,
    description: "Replacements, each matched against the original file; they must not overlap",
  }),
});
/** Validated edit arguments. */
export type EditArgs = Static<typeof EditParams>;

/** Serialisable options of edit (plus injectable fs). */
export interface EditToolOptions extends FsToolOptions {
  /** Largest file edit will load (default 32 MiB). */
  maxFileBytes?: number;
}

const DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const PAIR_KEYS = ["oldText", "newText", "old_string", "new_string", "old_text", "new_text"];

/** The oldText/newText of an object using any of the spellings models send, or null. */
function pairOf(v: Record<string, unknown>): { oldText: unknown; newText: unknown } | null {
  const oldText = v.oldText ?? v.old_string ?? v.old_text;
  const newText = v.newText ?? v.new_string ?? v.new_text;
  return oldText === undefined || newText === undefined ? null : { oldText, newText };
}

/**
 * Repairs `edits` sent as a JSON string or a single object, items spelled old_string/new_string,
 * and a top-level oldText/newText pair (added to `edits` when both are given, never dropped).
 */
export function prepareEditArguments(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const out: Record<string, unknown> = { ...raw };
  if (typeof out.edits === "string") {
    try {
      out.edits = JSON.parse(out.edits);
    } catch {
      // Leave it: validation reports the bad value.
    }
  }
  if (isRecord(out.edits)) out.edits = [out.edits];
  if (Array.isArray(out.edits)) {
    out.edits = out.edits.map((item) => {
      if (!isRecord(item) || (item.oldText !== undefined && item.newText !== undefined)) {
        return item;
      }
      return pairOf(item) ?? item;
    });
  }
  const pair = pairOf(out);
  if (pair !== null && (out.edits === undefined || Array.isArray(out.edits))) {
    out.edits = [...((out.edits as unknown[] | undefined) ?? []), pair];
    for (const key of PAIR_KEYS) delete out[key];
  }
  return out;
}

/** Line number (1-based) of a character index. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function findAll(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) {
    found.push(i);
    if (found.length > 50) break;
  }
  return found;
}

/** Why an oldText was not found, with the most useful hint we can compute. */
function notFoundHint(text: string, oldText: string): string {
  // Whitespace-insensitive: strip all whitespace, remembering each kept UTF-16 unit's line
  // (units, not code points, so indexOf positions in the joined text map back correctly).
  const kept: string[] = [];
  const lines: number[] = [];
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\n") line++;
    if (/\s/.test(ch)) continue;
    kept.push(ch);
    lines.push(line);
  }
  const squashedOld = oldText.replace(/\s+/g, "");
  if (squashedOld !== "") {
    const at = kept.join("").indexOf(squashedOld);
    if (at !== -1) {
      return `it matches at line ${lines[at]} if whitespace is ignored; copy the exact text ` +
        `(indentation and line breaks included) with read`;
    }
  }
  const firstLine = oldText.split("\n").find((l) => l.trim() !== "")?.trim();
  if (firstLine !== undefined) {
    const hits = text.split("\n").flatMap((l, i) => (l.includes(firstLine) ? [i + 1] : []));
    if (hits.length > 0) {
      return `its first line occurs at line ${hits.slice(0, 5).join(", ")} but the rest ` +
        `differs; read the file again and copy the exact text`;
    }
  }
  return "read the file again and copy the exact text";
}

/** Creates the edit tool. */
export function createEditTool(options: EditToolOptions): Tool<typeof EditParams> {
  const fs = options.fs;
  const resolve = pathResolver(options.cwd, fs, { home: options.home });
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;

  async function run(args: EditArgs): Promise<ToolOutput> {
    const abs = resolve(args.path);
    const shown = displayPath(options.cwd, abs);
    const fail = (output: string): ToolOutput => ({ isError: true, output });
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFile(abs, { maxBytes: maxFileBytes });
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      if (e.code === "too_large") {
        return fail(
          `Cannot edit "${shown}": it is larger than ${formatSize(maxFileBytes)}; ` +
            `use bash (e.g. sed) for files this large`,
        );
      }
      return fail(await fsFailure(fs, e, { cwd: options.cwd, absPath: abs, verb: "edit" }));
    }
    if (looksBinary(bytes)) {
      return fail(`Cannot edit "${shown}": it is a binary file; edit only text files`);
    }
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return fail(
        `Cannot edit "${shown}": it is not valid UTF-8, and editing it could corrupt it; ` +
          `use bash for this file`,
      );
    }
    const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
    const body = bom === "" ? text : text.slice(1);
    const crlf = body.includes("\r\n");
    // Match on LF-normalised text; `crAt` holds the normalised index of each "\n" that had a CR.
    const crAt: number[] = [];
    let norm = body;
    if (crlf) {
      const parts: string[] = [];
      let from = 0;
      let removed = 0;
      for (let i = body.indexOf("\r\n"); i !== -1; i = body.indexOf("\r\n", i + 2)) {
        parts.push(body.slice(from, i));
        crAt.push(i - removed);
        removed++;
        from = i + 1;
      }
      parts.push(body.slice(from));
      norm = parts.join("");
    }
    const toOriginal = (i: number): number => {
      let lo = 0;
      let hi = crAt.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((crAt[mid] as number) < i) lo = mid + 1;
        else hi = mid;
      }
      return i + lo;
    };

    const ranges: Array<{ start: number; end: number; newText: string; index: number }> = [];
    for (const [index, edit] of args.edits.entries()) {
      const n = index + 1;
      const label = args.edits.length > 1 ? `edit ${n}: ` : "";
      const oldText = edit.oldText.replace(/\r\n/g, "\n");
      const newText = edit.newText.replace(/\r\n/g, "\n");
      if (oldText === "") {
        return fail(
          `Cannot edit "${shown}": ${label}oldText is empty; give the exact text to replace`,
        );
      }
      if (oldText === newText) {
        return fail(
          `Cannot edit "${shown}": ${label}oldText and newText are identical; nothing would change`,
        );
      }
      const hits = findAll(norm, oldText);
      if (hits.length === 0) {
        return fail(
          `Cannot edit "${shown}": ${label}oldText was not found; ${
            notFoundHint(norm, oldText)
          }. ` +
            `No edits were applied.`,
        );
      }
      if (hits.length > 1) {
        const lines = hits.slice(0, 10).map((h) => lineAt(norm, h));
        const more = hits.length > 10 ? ", …" : "";
        return fail(
          `Cannot edit "${shown}": ${label}oldText occurs ${
            hits.length > 50 ? "more than 50" : hits.length
          } times (lines ${lines.join(", ")}${more}); include more surrounding lines to make ` +
            `it unique. No edits were applied.`,
        );
      }
      const start = hits[0] as number;
      ranges.push({ start, end: start + oldText.length, newText, index: n });
    }
    const sorted = [...ranges].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1];
      const cur = sorted[i];
      if (prev && cur && cur.start < prev.end) {
        const [a, b] = [prev.index, cur.index].sort((x, y) => x - y);
        return fail(
          `Cannot edit "${shown}": edits ${a} and ${b} overlap (line ${
            lineAt(norm, cur.start)
          }); ` +
            `merge them into one edit. No edits were applied.`,
        );
      }
    }
    // Splice into the original text so bytes outside the replaced regions stay untouched.
    const out: string[] = [];
    const normOut: string[] = [];
    let pos = 0;
    let normPos = 0;
    for (const r of sorted) {
      const s = toOriginal(r.start);
      out.push(body.slice(pos, s), crlf ? r.newText.replace(/\n/g, "\r\n") : r.newText);
      normOut.push(norm.slice(normPos, r.start), r.newText);
      pos = toOriginal(r.end);
      normPos = r.end;
    }
    out.push(body.slice(pos));
    normOut.push(norm.slice(normPos));
    const result = bom + out.join("");
    let written;
    try {
      written = await fs.writeFile(abs, new TextEncoder().encode(result));
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return fail(await fsFailure(fs, e, { cwd: options.cwd, absPath: abs, verb: "edit" }));
    }
    const diff = createTwoFilesPatch(shown, shown, norm, normOut.join(""), "", "", { context: 3 });
    const count = args.edits.length;
    return {
      output: `Edited ${shown}: ${count} ${count === 1 ? "edit" : "edits"} applied.`,
      display: diff,
      details: { path: written.path, edits: count },
    };
  }

  return {
    name: "edit",
    label: "Edit",
    description: "Edit a file by exact text replacement. Each edits[].oldText must match exactly " +
      "one place in the current file (whitespace and indentation included; copy it from read) " +
      "and edits must not overlap; either all edits apply or none. Include enough surrounding " +
      "lines to make oldText unique. Line endings (CRLF) and a UTF-8 BOM are preserved. Use " +
      "write to create a file or replace it completely.",
    parameters: EditParams,
    kind: "write",
    concurrencySafe: false,
    prepareArguments: prepareEditArguments,
    async locations(args) {
      // An edit reads first: through a dangling link it is judged where the link leads.
      const path = await realLocation(fs, resolve(args.path), { followDangling: true });
      return [{ access: "read", path }, { access: "write", path }];
    },
    execute: pathErrorsAsResults(run),
  };
}
