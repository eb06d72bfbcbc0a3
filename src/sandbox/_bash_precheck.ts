/**
 * The check of a bash call under a scoped `--allow-run` before it runs: the programs its command
 * line names (./_bash_commands.ts, a parse loaded on the first such call) that the view masks
 * are asked about on a terminal, or refused naming the whole flag (`--allow-run=git,ls,head`),
 * before anything of the command has run. What the parse cannot know is still named after the
 * call (./_bash_programs.ts).
 */
import { basename, dirname, isAbsolute, join } from "node:path";
import {
  approvalQuestion,
  askPermissionHooks,
  type Grants,
  isWithin,
  type PathOps,
  type PermissionDecision,
  type PermissionHook,
  POLICY_SOURCE,
  type PolicyBlock,
  type PolicyCall,
  type Prompter,
} from "../policy/mod.ts";
import type { ToolLocation } from "../tools/mod.ts";
import type { BashCommandParser } from "./_bash_commands.ts";

/** Programs a scoped `--allow-run` always keeps in the view (see bwrap/program_masks.ts). */
const ALWAYS_KEPT = new Set(["bash", "bwrap"]);

/** What the check needs from the sandbox. */
export interface ProgramPrecheckOptions {
  grants: () => Grants;
  /** The directories the view masks (real paths). */
  binDirs: () => readonly string[];
  paths: PathOps;
  /** The workspace (relative script paths) and a reader of a script's `#!` line. */
  cwd?: string;
  readText?: (path: string, maxBytes: number) => string | undefined;
  prompter?: Prompter;
  noPrompt?: boolean;
  /** The PermissionRequest hooks, asked before the user (and when nobody can be asked). */
  permissionHook?: PermissionHook;
  onDecision?: (decision: PermissionDecision) => void;
  /** Grants the program for the rest of the run. */
  allowAlways: (location: ToolLocation) => void;
  /** Grants the program for the call `toolCallId` alone. */
  allowForCall: (toolCallId: string, location: ToolLocation) => void;
  /** The parser (loaded on first use); a failure leaves the check to after the call. */
  parser: () => Promise<BashCommandParser>;
}

/** The programs `words` name that the view masks: not granted, present in a masked directory. */
export function maskedNames(
  words: readonly string[],
  options: {
    grants: Grants;
    binDirs: readonly string[];
    paths: PathOps;
    /** The directory relative script paths are in (the workspace). */
    cwd?: string;
    /** Reads a script's first bytes, for its `#!` line. */
    readText?: (path: string, maxBytes: number) => string | undefined;
  },
): { missing: string[]; denied: string[] } {
  const { grants, binDirs, paths } = options;
  const granted = new Set(grants.run === true ? [] : grants.run);
  const missing: string[] = [];
  const denied: string[] = [];
  const all = [...words];
  for (let i = 0; i < all.length && i < 64; i++) {
    const word = all[i] as string;
    let name = word;
    if (word.includes("/")) {
      const path = isAbsolute(word) ? word : join(options.cwd ?? "/", word);
      const dir = paths.realPath(dirname(path));
      if (!dir.ok || !binDirs.includes(dir.path)) {
        // A script outside the masked directories runs as is, but its interpreter may be masked
        // (read only where bash could read it: the check tells nothing of other files).
        const readable = grants.read === true || grants.read.some((r) => isWithin(path, r));
        if (!readable) continue;
        for (const p of interpreter(path, options.readText)) if (!all.includes(p)) all.push(p);
        continue;
      }
      name = basename(word);
    }
    if (ALWAYS_KEPT.has(name) || granted.has(name) || granted.has(word)) continue;
    const exists = binDirs.some((dir) => {
      const st = paths.stat(`${dir}/${name}`);
      return st?.kind === "file" && ((st.mode ?? 0o111) & 0o111) !== 0;
    });
    if (!exists) continue;
    const list = grants.denyRun.includes(name) || grants.denyRun.includes(word) ? denied : missing;
    if (!list.includes(name)) list.push(name);
  }
  return { missing, denied };
}

/** The programs a script's `#!` line runs (`#!/usr/bin/env python3`: env and python3). */
function interpreter(
  path: string,
  readText: ((path: string, maxBytes: number) => string | undefined) | undefined,
): string[] {
  const head = readText?.(path, 64 * 1024);
  if (head === undefined || !head.startsWith("#!")) return [];
  const words = head.slice(2, head.indexOf("\n") === -1 ? undefined : head.indexOf("\n")).trim()
    .split(/\s+/).filter((w) => w !== "");
  const [program, ...args] = words;
  if (program === undefined) return [];
  if (basename(program) !== "env") return [program];
  const wrapped = args.find((a) => !a.startsWith("-"));
  return wrapped === undefined ? [program] : [program, wrapped];
}

/** The `--allow-run` flag that keeps the granted programs and adds `programs`. */
export function runFlag(grants: Grants, programs: readonly string[]): string {
  const current = grants.run === true ? [] : grants.run;
  return `--allow-run=${[...new Set([...current, ...programs])].join(",")}`;
}

/** Creates the check; it answers undefined for every call it lets run. Must not reject. */
export function createProgramPrecheck(
  options: ProgramPrecheckOptions,
): (call: PolicyCall) => Promise<PolicyBlock | undefined> {
  return async (call) => {
    const grants = options.grants();
    if (call.name !== "bash" || grants.run === true || !grants.explicit.run) return undefined;
    const command = (call.args as { command?: unknown } | undefined)?.command;
    if (typeof command !== "string") return undefined;
    let words: string[];
    try {
      words = (await options.parser()).programs(command).programs;
    } catch {
      return undefined;
    }
    const masked = maskedNames(words, {
      grants,
      binDirs: options.binDirs(),
      paths: options.paths,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.readText === undefined ? {} : { readText: options.readText }),
    });
    const denied = masked.denied;
    let missing = masked.missing;
    const record = (
      program: string,
      how: Pick<PermissionDecision, "outcome" | "by">,
      more = {},
    ) => {
      try {
        options.onDecision?.({
          toolCallId: call.toolCallId,
          toolName: "bash",
          access: "run",
          target: program,
          ...how,
          ...more,
        });
      } catch { /* a sink must not change the decision */ }
    };
    const block = (reason: string): PolicyBlock => ({ block: true, reason, source: POLICY_SOURCE });
    if (denied.length > 0) {
      const reason = `run access to ${quoted(denied)} is denied by --deny-run: bash was not run`;
      for (const p of denied) record(p, { outcome: "denied", by: "deny_list" }, { reason });
      return block(reason);
    }
    const asked = await askHooks(missing, call, options, record);
    if ("block" in asked) return block(asked.block);
    missing = asked.left;
    if (missing.length === 0) return undefined;
    const flag = runFlag(grants, missing);
    if (options.prompter === undefined || options.noPrompt || call.signal.aborted) {
      const reason = `run access to ${quoted(missing)} is not granted: bash was not run (add ` +
        `${flag})`;
      for (const p of missing) {
        record(p, { outcome: "denied", by: "no_prompt" }, { reason, hint: flag });
      }
      return block(reason);
    }
    for (const program of missing) {
      const location: ToolLocation = { access: "run", program };
      const answer = await options.prompter.ask({
        toolName: "bash",
        location,
        question: approvalQuestion("bash", location),
      });
      if (answer === "deny") {
        const reason = `run access to "${program}" was declined by the user: bash was not run; ` +
          "do not retry it";
        record(program, { outcome: "denied", by: "user" }, { reason });
        return block(reason);
      }
      if (answer === "once") {
        options.allowForCall(call.toolCallId, location);
        record(program, { outcome: "approved_once", by: "user" });
      } else {
        options.allowAlways(location);
        record(program, { outcome: "approved_always", by: "user" });
      }
    }
    return undefined;
  };
}

/**
 * Asks the PermissionRequest hooks about each masked program: a denial's reason, or the
 * programs left for the user (or the refusal); those a hook allowed are granted for the run.
 */
async function askHooks(
  missing: readonly string[],
  call: PolicyCall,
  options: ProgramPrecheckOptions,
  record: (program: string, how: Pick<PermissionDecision, "outcome" | "by">, more?: object) => void,
): Promise<{ left: string[] } | { block: string }> {
  if (options.permissionHook === undefined || call.signal.aborted) return { left: [...missing] };
  const run = (program: string): ToolLocation => ({ access: "run", program });
  const asked = await askPermissionHooks(options.permissionHook, missing, {
    request: (program) => ({
      toolName: "bash",
      location: run(program),
      question: approvalQuestion("bash", run(program)),
      toolCallId: call.toolCallId,
      args: call.args,
    }),
    allowed(program) {
      options.allowAlways(run(program));
      record(program, { outcome: "approved_always", by: "hook" });
    },
  });
  if ("left" in asked) return asked;
  const reason = `${asked.reason} (bash was not run)`;
  record(asked.denied, { outcome: "denied", by: "hook" }, { reason });
  return { block: reason };
}

function quoted(names: readonly string[]): string {
  const q = names.map((n) => `"${n}"`);
  return q.length === 1 ? q[0] as string : `${q.slice(0, -1).join(", ")} and ${q.at(-1)}`;
}
