/** The edit tool: exact, unique, non-overlapping replacements applied all-or-nothing. */
import { type Static, Type } from "@sinclair/typebox";
import { editPatch } from "./change.ts";
import { decodeForEdit, planEdits } from "./edit_apply.ts";
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
    const decoded = decodeForEdit(bytes, shown);
    if (!decoded.ok) return fail(decoded.error);
    const text = decoded.text;
    const plan = planEdits(text, args.edits, shown);
    if (!plan.ok) return fail(plan.error);
    let written;
    try {
      written = await fs.writeFile(abs, new TextEncoder().encode(plan.result));
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return fail(await fsFailure(fs, e, { cwd: options.cwd, absPath: abs, verb: "edit" }));
    }
    const diff = editPatch(shown, plan.before, plan.after);
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
