/** The write tool: create or replace a whole file atomically, creating parent directories. */
import { type Static, Type } from "@sinclair/typebox";
import {
  displayPath,
  fsFailure,
  type FsToolOptions,
  pathErrorsAsResults,
  pathResolver,
  realLocation,
} from "./paths.ts";
import { FsError, type FsOps } from "./ops.ts";
import { fsPreviewReader, writeChange } from "./change.ts";
import type { Tool, ToolOutput } from "../agent/tool.ts";

/** Arguments of write. */
export const WriteParams = Type.Object({
  path: Type.String({
    description: "File to create or overwrite, relative to the working directory or absolute",
  }),
  content: Type.String({ description: "The complete new content of the file" }),
});
/** Validated write arguments. */
export type WriteArgs = Static<typeof WriteParams>;

/** Serialisable options of write (plus injectable fs). */
export type WriteToolOptions = FsToolOptions;

const CREATED = "created a new file";
const OVERWROTE = "overwrote the existing file";

/**
 * A write tool result for `path` when that file did not exist before the call: the sandbox
 * created it empty just before (so that bubblewrap could mount exactly that file), and the write
 * found it there. Any other result is returned as it is.
 */
export function asNewFileWrite(output: ToolOutput, path: string): ToolOutput {
  const details = output.details as { path?: unknown; created?: unknown } | undefined;
  if (output.isError === true || details?.path !== path || details.created !== false) return output;
  return {
    ...output,
    output: output.output.replace(`(${OVERWROTE}).`, `(${CREATED}).`),
    details: { ...details, created: true },
  };
}

/**
 * The file's content before a write, for the diff people see (`display`, never sent to the
 * model): null when it does not exist, undefined when it cannot be read or is over DIFF_MAX_BYTES
 * (a write needs no read grant, so a refused read only means no diff).
 */
async function contentBefore(fs: FsOps, abs: string): Promise<Uint8Array | null | undefined> {
  try {
    return await fsPreviewReader(fs)(abs);
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
    return undefined;
  }
}

/** Creates the write tool. */
export function createWriteTool(options: WriteToolOptions): Tool<typeof WriteParams> {
  const fs = options.fs;
  const resolve = pathResolver(options.cwd, fs, { home: options.home });

  async function run(args: WriteArgs): Promise<ToolOutput> {
    const abs = resolve(args.path);
    const shown = displayPath(options.cwd, abs);
    const bytes = new TextEncoder().encode(args.content);
    const before = await contentBefore(fs, abs);
    try {
      const result = await fs.writeFile(abs, bytes, { createParents: true });
      const how = result.created ? CREATED : OVERWROTE;
      const out: ToolOutput = {
        output: `Wrote ${bytes.length} bytes to ${shown} (${how}).`,
        details: { path: result.path, bytes: bytes.length, created: result.created },
      };
      if (before !== undefined) {
        const change = writeChange(shown, result.created ? null : before, bytes);
        if (change.kind === "patch") out.display = change.patch;
      }
      return out;
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return {
        isError: true,
        output: await fsFailure(fs, e, { cwd: options.cwd, absPath: abs, verb: "write" }),
      };
    }
  }

  return {
    name: "write",
    label: "Write",
    description: "Write a file with the given content, replacing it if it exists and creating " +
      "parent directories as needed. The write is atomic. Prefer edit for changing part of an " +
      "existing file.",
    parameters: WriteParams,
    kind: "write",
    concurrencySafe: false,
    async locations(args) {
      return [{ access: "write", path: await realLocation(fs, resolve(args.path)) }];
    },
    execute: pathErrorsAsResults(run),
  };
}
