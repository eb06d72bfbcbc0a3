/** The ls tool: one directory's entries, sorted case-insensitively, bounded. */
import { type Static, Type } from "@sinclair/typebox";
import { join } from "node:path";
import {
  displayPath,
  fsFailure,
  type FsToolOptions,
  pathErrorsAsResults,
  pathResolver,
  realLocation,
} from "./paths.ts";
import { FsError } from "./ops.ts";
import { hiddenAsMissing, placeholderFilter } from "./placeholders.ts";
import type { Tool, ToolOutput } from "../agent/tool.ts";

/** Arguments of ls. */
export const LsParams = Type.Object({
  path: Type.Optional(
    Type.String({ description: "Directory to list (default: the working directory)" }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, description: "Maximum number of entries (default 500)" }),
  ),
});
/** Validated ls arguments. */
export type LsArgs = Static<typeof LsParams>;

/** Serialisable options of ls (plus injectable fs). */
export interface LsToolOptions extends FsToolOptions {
  /** Default entry limit (default 500). */
  defaultLimit?: number;
}

/** Creates the ls tool. */
export function createLsTool(options: LsToolOptions): Tool<typeof LsParams> {
  const fs = options.fs;
  const resolve = pathResolver(options.cwd, fs, { home: options.home });
  const defaultLimit = options.defaultLimit ?? 500;
  const hidden = placeholderFilter(fs, options.placeholders);

  async function run(args: LsArgs): Promise<ToolOutput> {
    const limit = args.limit ?? defaultLimit;
    const abs = resolve(args.path ?? ".");
    const shown = displayPath(options.cwd, abs);
    const names: string[] = [];
    try {
      const real = await fs.realPath(abs);
      if (await hidden.hides(real)) throw hiddenAsMissing(abs);
      if (!(await fs.stat(real)).isDirectory) {
        return {
          isError: true,
          output: `Cannot list "${shown}": it is a file, not a directory; use read to read it`,
        };
      }
      for await (const entry of fs.readDir(real)) {
        const path = join(real, entry.name);
        if (hidden.names(path) && await hidden.hides(path)) continue;
        names.push(
          entry.isDirectory ? `${entry.name}/` : entry.isSymlink ? `${entry.name}@` : entry.name,
        );
      }
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return {
        isError: true,
        output: await fsFailure(fs, e, {
          cwd: options.cwd,
          absPath: abs,
          verb: "list",
          what: "Directory",
          hidden,
        }),
      };
    }
    if (names.length === 0) return { output: "(empty directory)", details: { count: 0 } };
    names.sort((a, b) => {
      const la = a.toLowerCase();
      const lb = b.toLowerCase();
      if (la !== lb) return la < lb ? -1 : 1;
      return a < b ? -1 : a > b ? 1 : 0;
    });
    const shownEntries = names.slice(0, limit);
    const note = names.length > limit
      ? `\n\n[Showing ${limit} of ${names.length} entries. Use limit=${names.length} to see all.]`
      : "";
    return {
      output: shownEntries.join("\n") + note,
      details: { count: names.length, truncated: names.length > limit },
    };
  }

  return {
    name: "ls",
    label: "List",
    description: "List a directory's entries, sorted case-insensitively, dotfiles included. " +
      "Directories end with '/', symlinks with '@'. " +
      `At most ${defaultLimit} entries by default, with a note when more exist.`,
    parameters: LsParams,
    kind: "read",
    concurrencySafe: true,
    async locations(args) {
      return [{
        access: "read",
        path: await realLocation(fs, resolve(args.path ?? "."), { followDangling: true }),
      }];
    },
    execute: pathErrorsAsResults(run),
  };
}
