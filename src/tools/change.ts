/**
 * What a write or an edit changes in a file, as a person reads it: a unified diff, or a one-line
 * summary for binary and very large files. Pure, so the tools (after a call) and the approval
 * question (before one, through an injected reader) compute the same thing.
 */
import { createTwoFilesPatch } from "diff";
import { decodeForEdit, planEdits } from "./edit_apply.ts";
import { looksBinary } from "./lines.ts";
import { displayPath, PathError, resolvePath } from "./paths.ts";
import { FsError, type FsOps } from "./ops.ts";

/** Largest old or new content diffed for people (bigger files are summarised). */
export const DIFF_MAX_BYTES = 512 * 1024;
/** Most changed lines the diff looks for before it gives up and summarises (bounds its cost). */
export const DIFF_MAX_EDIT_LINES = 400;

/** What a write or edit changes (or would change) in one file. */
export type FileChange =
  /** A unified diff; its old file name is "/dev/null" for a file that did not exist. */
  | { kind: "patch"; path: string; patch: string }
  /** Nothing would change. */
  | { kind: "unchanged"; path: string }
  /** Binary content (old or new), or content too large or too different to diff. */
  | { kind: "binary" | "large"; path: string; bytes: number; created: boolean }
  /** The call would fail (or the file could not be read): the reason, as the tool says it. */
  | { kind: "unavailable"; path: string; reason: string };

/**
 * A path as a patch header names it: line breaks (also CR, U+2028/9) as `\uXXXX`, since a parser
 * reads the header one line at a time (jsdiff's parsePatch loops forever on such a name).
 */
function headerName(shown: string): string {
  return shown.replace(
    /[\n\r\u2028\u2029]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The diff edit reports: LF-normalised old and new text, three lines of context. */
export function editPatch(shown: string, before: string, after: string): string {
  const name = headerName(shown);
  return createTwoFilesPatch(name, name, before, after, "", "", { context: 3 });
}

/**
 * The change of a write: `before` null when the file does not exist. Binary content, content over
 * DIFF_MAX_BYTES and texts too different to diff cheaply are summarised, not diffed.
 */
export function writeChange(
  shown: string,
  before: Uint8Array | null,
  after: Uint8Array,
): FileChange {
  const created = before === null;
  const summary = (kind: "binary" | "large"): FileChange => ({
    kind,
    path: shown,
    bytes: after.length,
    created,
  });
  if (before !== null && before.length === after.length && before.every((b, i) => b === after[i])) {
    return { kind: "unchanged", path: shown };
  }
  if ((before !== null && looksBinary(before)) || looksBinary(after)) return summary("binary");
  if ((before?.length ?? 0) > DIFF_MAX_BYTES || after.length > DIFF_MAX_BYTES) {
    return summary("large");
  }
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  const old = before === null ? "" : decode(before);
  const now = decode(after);
  // Against an empty side the diff is linear; otherwise its cost grows with the lines changed.
  const bounded = old !== "" && now !== "";
  const patch = createTwoFilesPatch(
    created ? "/dev/null" : headerName(shown),
    headerName(shown),
    old,
    now,
    "",
    "",
    { context: 3, maxEditLength: bounded ? DIFF_MAX_EDIT_LINES : Infinity },
  );
  return patch === undefined ? summary("large") : { kind: "patch", path: shown, patch };
}

/**
 * Reads a file for a preview: its bytes, or null when it does not exist. May throw FsError (any
 * other failure); an FsOps-backed reader passes `{ maxBytes }` so that a huge file is not loaded.
 */
export type PreviewReader = (absPath: string) => Promise<Uint8Array | null>;

/** Where a preview looks: the call's working directory and the home directory for `~`. */
export interface PreviewOptions {
  cwd: string;
  home?: string;
}

/** Arguments of a pending edit call (as validated; prepareEditArguments already applied). */
export interface EditCallArgs {
  path: string;
  edits: ReadonlyArray<{ oldText: string; newText: string }>;
}

/** Arguments of a pending write call. */
export interface WriteCallArgs {
  path: string;
  content: string;
}

/** A PreviewReader on `fs`: at most DIFF_MAX_BYTES, null for a missing file. */
export function fsPreviewReader(fs: Pick<FsOps, "readFile">): PreviewReader {
  return async (absPath) => {
    try {
      return await fs.readFile(absPath, { maxBytes: DIFF_MAX_BYTES });
    } catch (e) {
      if (e instanceof FsError && e.code === "not_found") return null;
      throw e;
    }
  };
}

type Target =
  | { ok: true; shown: string; bytes: Uint8Array | null }
  | { ok: false; change: FileChange };

/** The file a pending call names, as shown, and its bytes (null when missing); or why not. */
async function readTarget(
  path: string,
  read: PreviewReader,
  options: PreviewOptions,
): Promise<Target> {
  let abs: string;
  let shown: string;
  try {
    abs = resolvePath(options.cwd, path, options.home ? { home: options.home } : {});
    shown = displayPath(options.cwd, abs);
  } catch (e) {
    if (!(e instanceof PathError)) throw e;
    return { ok: false, change: { kind: "unavailable", path, reason: e.message } };
  }
  try {
    return { ok: true, shown, bytes: await read(abs) };
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
    if (e.code === "too_large") {
      return { ok: false, change: { kind: "large", path: shown, bytes: 0, created: false } };
    }
    const reason = e.code === "not_granted"
      ? `diff not shown: ${e.message}`
      : `Cannot read "${shown}" to show the change: ${e.message}`;
    return { ok: false, change: { kind: "unavailable", path: shown, reason } };
  }
}

/**
 * The diff a pending edit would produce, matched exactly as the edit tool matches (the same
 * code): equal to the `display` the edit returns when it runs on the same content.
 */
export async function previewEdit(
  args: EditCallArgs,
  read: PreviewReader,
  options: PreviewOptions,
): Promise<FileChange> {
  const got = await readTarget(args.path, read, options);
  if (!got.ok) return got.change;
  const { shown } = got;
  if (got.bytes === null) {
    return {
      kind: "unavailable",
      path: shown,
      reason: `Cannot edit "${shown}": it does not exist`,
    };
  }
  const decoded = decodeForEdit(got.bytes, shown);
  if (!decoded.ok) return { kind: "unavailable", path: shown, reason: decoded.error };
  const plan = planEdits(decoded.text, args.edits, shown);
  if (!plan.ok) return { kind: "unavailable", path: shown, reason: plan.error };
  return { kind: "patch", path: shown, patch: editPatch(shown, plan.before, plan.after) };
}

/** What a pending write would change: the current content (or none) against the new one. */
export async function previewWrite(
  args: WriteCallArgs,
  read: PreviewReader,
  options: PreviewOptions,
): Promise<FileChange> {
  const got = await readTarget(args.path, read, options);
  if (!got.ok) return got.change;
  return writeChange(got.shown, got.bytes, new TextEncoder().encode(args.content));
}
