/**
 * The diff shown above an approval question for a write or an edit: what the call would change,
 * computed as the tool computes it (src/tools/change.ts) from a file read through the request's
 * guarded reader, so the person approves what they can read.
 */
import type { ApprovalRequest } from "../policy/approve.ts";
import { previewEdit, previewWrite } from "../tools/mod.ts";
import { changeLines } from "./diff_view.ts";

/** Where the tools resolve paths and how the diff is drawn. */
export interface ApprovalDiffOptions {
  /** The tools' working directory (the workspace). */
  cwd: string;
  /** The home directory for `~` in a path. */
  home?: string;
  color: boolean;
  /** Terminal width (0: 80). */
  columns: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isEdits(value: unknown): value is Array<{ oldText: string; newText: string }> {
  return Array.isArray(value) &&
    value.every((e) =>
      isRecord(e) && typeof e.oldText === "string" && typeof e.newText === "string"
    );
}

/** The diff lines for `request` (indented), or none when it is not about a write or an edit. */
export async function approvalDiffLines(
  request: ApprovalRequest,
  options: ApprovalDiffOptions,
): Promise<string[]> {
  const { args, readFile } = request;
  if (readFile === undefined || !isRecord(args) || typeof args.path !== "string") return [];
  const where = { cwd: options.cwd, ...(options.home === undefined ? {} : { home: options.home }) };
  const path = args.path;
  const change = request.toolName === "write" && typeof args.content === "string"
    ? await previewWrite({ path, content: args.content }, readFile, where)
    : request.toolName === "edit" && isEdits(args.edits)
    ? await previewEdit({ path, edits: args.edits }, readFile, where)
    : undefined;
  if (change === undefined) return [];
  return changeLines(change, { color: options.color, columns: options.columns, indent: "  " });
}
