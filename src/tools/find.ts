/** The find tool: glob over a tree with the same ignore rules as grep; sorted, bounded. */
import { type Static, Type } from "@sinclair/typebox";
import { join } from "node:path";
import { globMatcher, walkTree, workspaceAncestors } from "./walk.ts";
import {
  displayPath,
  fsFailure,
  type FsToolOptions,
  pathErrorsAsResults,
  pathResolver,
  realLocation,
} from "./paths.ts";
import { DEFAULT_MAX_BYTES, formatSize, truncateHead } from "./truncate.ts";
import { FsError } from "./ops.ts";
import { hiddenAsMissing, placeholderFilter } from "./placeholders.ts";
import type { Tool, ToolOutput } from "../agent/tool.ts";

/** Arguments of find. */
export const FindParams = Type.Object({
  pattern: Type.String({
    description: "Glob, e.g. '*.ts' (matches file names at any depth) or 'src/**/*_test.ts' " +
      "(matched against the path relative to the search directory)",
  }),
  path: Type.Optional(
    Type.String({ description: "Directory to search (default: the working directory)" }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, description: "Maximum number of results (default 1000)" }),
  ),
});
/** Validated find arguments. */
export type FindArgs = Static<typeof FindParams>;

/** Serialisable options of find (plus injectable fs). */
export interface FindToolOptions extends FsToolOptions {
  /** Default result limit (default 1000). */
  defaultLimit?: number;
  /** Byte budget of the output (default 51,200). */
  maxBytes?: number;
}

/** Creates the find tool. */
export function createFindTool(options: FindToolOptions): Tool<typeof FindParams> {
  const fs = options.fs;
  const resolve = pathResolver(options.cwd, fs, { home: options.home });
  const defaultLimit = options.defaultLimit ?? 1000;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const hidden = placeholderFilter(fs, options.placeholders);

  async function run(args: FindArgs, signal: AbortSignal): Promise<ToolOutput> {
    const fail = (output: string): ToolOutput => ({ isError: true, output });
    if (args.pattern === "") {
      return fail("The pattern is empty; give a glob such as '*.ts' (or '*' for every file)");
    }
    const limit = args.limit ?? defaultLimit;
    const abs = resolve(args.path ?? ".");
    const shownRoot = displayPath(options.cwd, abs);
    let root: string;
    try {
      root = await fs.realPath(abs);
      if (await hidden.hides(root)) throw hiddenAsMissing(abs);
      if (!(await fs.stat(root)).isDirectory) {
        return fail(`Cannot search "${shownRoot}": it is a file, not a directory; use read`);
      }
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return fail(
        await fsFailure(fs, e, {
          cwd: options.cwd,
          absPath: abs,
          verb: "search",
          what: "Directory",
          hidden,
        }),
      );
    }
    const matches = globMatcher(args.pattern);
    const found: string[] = [];
    let more = false;
    const walker = walkTree(fs, root, {
      ancestors: await workspaceAncestors(fs, options.cwd, root),
      includeDirs: true,
      signal,
      hidden,
    });
    for await (const entry of walker) {
      if (!matches(entry.rel)) continue;
      if (found.length >= limit) {
        more = true;
        break;
      }
      const shown = displayPath(options.cwd, join(abs, entry.rel));
      found.push(entry.isDirectory ? `${shown}/` : shown);
    }
    if (signal.aborted) return fail("Search aborted");
    if (found.length === 0) {
      // A pattern with "/" is matched against paths relative to the search directory; say so,
      // since models often write it relative to the working directory or as an absolute path.
      const hint = args.pattern.includes("/")
        ? ` (a pattern containing "/" is matched against paths relative to "${shownRoot}", ` +
          `e.g. "src/**/*.ts"; use a pattern without "/" to match names at any depth)`
        : "";
      return {
        output: `No files matching "${args.pattern}" in "${shownRoot}"${hint}`,
        details: { count: 0 },
      };
    }
    found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const kept = truncateHead(found.join("\n"), { maxLines: found.length, maxBytes });
    let note = "";
    if (kept.truncated) {
      note = `\n\n[Output cut at ${formatSize(maxBytes)}: showing ${kept.outputLines} of ` +
        `${found.length}${more ? "+" : ""} results. Narrow the pattern or path.]`;
    } else if (more) {
      note = `\n\n[Showing the first ${limit} results. Use limit=${limit * 2} for more, ` +
        `or narrow the pattern or path.]`;
    }
    return {
      output: kept.content + note,
      details: { count: found.length, truncated: more || kept.truncated },
    };
  }

  return {
    name: "find",
    label: "Find",
    description: "Find files and directories by glob. A pattern without '/' matches names at " +
      "any depth ('*.ts'); with '/' it matches paths relative to the search directory " +
      "('src/**/*.ts'). Respects .gitignore and .ignore, skips .git, includes hidden files. " +
      `Results are sorted; at most ${defaultLimit} by default, with a note when more exist. ` +
      "Directories end with '/'.",
    parameters: FindParams,
    kind: "read",
    concurrencySafe: true,
    maxResultChars: maxBytes + 1000,
    async locations(args) {
      return [{
        access: "read",
        path: await realLocation(fs, resolve(args.path ?? "."), { followDangling: true }),
      }];
    },
    execute: pathErrorsAsResults(run),
  };
}
