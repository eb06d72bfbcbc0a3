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
      const how = result.created ? "created a new file" : "overwrote the existing file";
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
