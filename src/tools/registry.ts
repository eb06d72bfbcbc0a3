/** The built-in tool set: one factory call builds all eight from serialisable options. */
import { createBashTool } from "./bash/mod.ts";
import { createJobTool } from "./bash/job_tool.ts";
import { JobTable } from "./bash/jobs.ts";
import { createEditTool } from "./edit.ts";
import { createFindTool } from "./find.ts";
import { createGrepTool, type ScanThreads } from "./grep/mod.ts";
import { createLsTool } from "./ls.ts";
import type { FsOps, ProcessOps, ProcessRegistry } from "./ops.ts";
import { createReadTool } from "./read.ts";
import type { AnyTool } from "../agent/tool.ts";
import { createWriteTool } from "./write.ts";

/** Names of the built-in tools, in the order they are offered to the model. */
export const BUILTIN_TOOL_NAMES = [
  "read",
  "bash",
  "edit",
  "write",
  "grep",
  "find",
  "ls",
  "job",
] as const;

/** Tools the sandbox adds to the built-ins, run in the main process (fetch: --allow-net). */
export const NETWORK_TOOL_NAMES = ["fetch"] as const;

/** A built-in tool name. */
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/**
 * Options of `createBuiltinTools`. Everything but `fs`, `process`, `processRegistry` and
 * `grepThreads` is JSON-serialisable, so a sandbox Worker can rebuild the tools from it.
 */
export interface BuiltinToolOptions {
  cwd: string;
  /** Per-run directory for bash's spilled output. */
  spillDir: string;
  /** The complete environment of bash commands; its HOME expands `~` in paths without `home`. */
  env?: Record<string, string>;
  /**
   * The home directory `~` expands to in path arguments: the one moat resolved at the start
   * (src/policy/home.ts), so the tools in a Worker or bubblewrap mean what the grants meant.
   */
  home?: string;
  bashTimeoutSec?: number;
  bashMaxTimeoutSec?: number;
  /** File operations shared by the tools (the entry points pass Deno's: src/sys/fs.ts). */
  fs: FsOps;
  /** Process operations of bash (the entry points pass Deno's: src/sys/process.ts). */
  process: ProcessOps;
  /** Argv prefix bash runs under (e.g. a nested bwrap), or what makes it at each call. */
  bashCommandPrefix?: string[] | (() => Promise<string[]>);
  /** A directory private to the run and discarded (the OS sandbox's /tmp): bash says so. */
  bashPrivateTmp?: string;
  processRegistry?: ProcessRegistry;
  /** Helper threads of grep (the tool Worker's entry point starts them); none: one thread. */
  grepThreads?: ScanThreads;
  /** The OS sandbox's placeholder paths: read, grep, find and ls treat unused ones as missing. */
  placeholders?: readonly string[];
  /** bash says that empty read-only placeholder directories may stand in the workspace. */
  bashPlaceholders?: boolean;
}

/** Builds the eight built-in tools sharing one FsOps. */
export function createBuiltinTools(options: BuiltinToolOptions): AnyTool[] {
  const fs = options.fs;
  const home = options.home ?? options.env?.HOME;
  const common = {
    cwd: options.cwd,
    fs,
    ...(home === undefined ? {} : { home }),
    ...(options.placeholders === undefined ? {} : { placeholders: options.placeholders }),
  };
  const jobs = new JobTable({
    cwd: options.cwd,
    spillDir: options.spillDir,
    env: options.env ?? {},
    process: options.process,
    ...(options.bashCommandPrefix === undefined
      ? {}
      : { commandPrefix: options.bashCommandPrefix }),
    ...(options.processRegistry === undefined ? {} : { processRegistry: options.processRegistry }),
  });
  return [
    createReadTool(common),
    createBashTool({
      jobs,
      cwd: options.cwd,
      spillDir: options.spillDir,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.bashTimeoutSec === undefined ? {} : { timeoutSec: options.bashTimeoutSec }),
      ...(options.bashMaxTimeoutSec === undefined
        ? {}
        : { maxTimeoutSec: options.bashMaxTimeoutSec }),
      process: options.process,
      ...(options.bashCommandPrefix === undefined
        ? {}
        : { commandPrefix: options.bashCommandPrefix }),
      ...(options.processRegistry === undefined
        ? {}
        : { processRegistry: options.processRegistry }),
      ...(options.bashPrivateTmp === undefined ? {} : { privateTmp: options.bashPrivateTmp }),
      ...(options.bashPlaceholders ? { placeholders: true } : {}),
    }),
    createEditTool(common),
    createWriteTool(common),
    createGrepTool({
      ...common,
      ...(options.grepThreads === undefined ? {} : { threads: options.grepThreads }),
    }),
    createFindTool(common),
    createLsTool(common),
    createJobTool(jobs),
  ];
}

/**
 * The tools named in `names`, in the order of `names`. Throws (a usage error for the CLI) when a
 * name is unknown, listing the available ones.
 */
export function selectTools(tools: readonly AnyTool[], names: readonly string[]): AnyTool[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const unknown = names.filter((n) => !byName.has(n));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown tool${unknown.length > 1 ? "s" : ""}: ${
        unknown.map((n) => `"${n}"`).join(", ")
      }; available: ${tools.map((t) => t.name).join(", ")}`,
    );
  }
  return [...new Set(names)].map((n) => byName.get(n) as AnyTool);
}
