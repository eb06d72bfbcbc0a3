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
import { FsError } from "./ops.ts";
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

/** Creates the write tool. */
export function createWriteTool(options: WriteToolOptions): Tool<typeof WriteParams> {
  const fs = options.fs;
  const resolve = pathResolver(options.cwd, fs, { home: options.home });

  async function run(args: WriteArgs): Promise<ToolOutput> {
    const abs = resolve(args.path);
    const shown = displayPath(options.cwd, abs);
    const bytes = new TextEncoder().encode(args.content);
    try {
      const result = await fs.writeFile(abs, bytes, { createParents: true });
      const how = result.created ? CREATED : OVERWROTE;
      return {
        output: `Wrote ${bytes.length} bytes to ${shown} (${how}).`,
        details: { path: result.path, bytes: bytes.length, created: result.created },
      };
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
