/**
 * User hooks: configured commands that run at the events of a run, read the event as JSON on
 * stdin and answer with an exit code and stdout (see protocol.ts). Hooks of one event run
 * concurrently and their answers combine; a hook that fails or times out is reported and the
 * step goes on.
 */
import type { HookRecord } from "../report/mod.ts";
import type { ConfiguredHook } from "./config.ts";
import type { HookEvent } from "./config_schema.ts";
import {
  type CombinedVerdict,
  combineVerdicts,
  type HookVerdict,
  interpretResult,
  systemMessageOf,
} from "./protocol.ts";
import type { HookCommandRunner, HookRunResult } from "./runner.ts";

export {
  type ConfiguredHook,
  configuredHooks,
  DEFAULT_HOOK_TIMEOUT_SEC,
  type HookLayers,
} from "./config.ts";
export { HOOK_EVENTS, type HookEvent, type HooksConfig, HooksSchema } from "./config_schema.ts";
export type { CombinedVerdict, HookVerdict } from "./protocol.ts";
export type { HookCommandRunner, HookCommandSpec, HookRunResult } from "./runner.ts";

/** The hooks of one run. */
export interface Hooks {
  /** True when some hook would run for this event (and tool name, for tool events). */
  has(event: HookEvent, toolName?: string): boolean;
  /** Runs the event's matching hooks concurrently; never rejects. */
  run(
    event: HookEvent,
    fields: Record<string, unknown>,
    options?: { toolName?: string; toolCallId?: string; signal?: AbortSignal },
  ): Promise<CombinedVerdict>;
}

/** What the hooks need from the run. */
export interface HooksOptions {
  hooks: readonly ConfiguredHook[];
  runner: HookCommandRunner;
  /** The workspace: the hooks' working directory and the `cwd` field. */
  cwd: string;
  /** The session id (`session_id`), when the run has one. */
  sessionId: () => string | null;
  /** The session file (`transcript_path`), when the run writes one. */
  transcriptPath?: () => string | null;
  /** Sees every hook starting and ending. */
  report: (record: HookRecord) => void;
}

function matching(hooks: readonly ConfiguredHook[], event: HookEvent, toolName?: string) {
  return hooks.filter((h) =>
    h.event === event &&
    (h.matches === undefined || (toolName !== undefined && h.matches.test(toolName)))
  );
}

function decisionOf(verdict: HookVerdict): NonNullable<HookRecord["decision"]> {
  switch (verdict.kind) {
    case "block":
      return verdict.stop === true ? "stop" : "block";
    case "failed":
      return "failed";
    case "ok":
      if (verdict.updatedInput !== undefined) return "rewrite";
      if (verdict.allow === true) return "allow";
      return verdict.context === undefined ? "none" : "context";
    default: {
      const never: never = verdict;
      throw new Error(`unknown hook verdict ${JSON.stringify(never)}`);
    }
  }
}

/** Creates the hooks of a run. */
export function createHooks(options: HooksOptions): Hooks {
  const runOne = async (
    hook: ConfiguredHook,
    stdin: string,
    about: { toolName?: string; toolCallId?: string; signal?: AbortSignal },
  ): Promise<HookVerdict> => {
    const base: HookRecord = {
      phase: "start",
      event: hook.event,
      command: hook.spec.command,
      source: hook.spec.source,
    };
    if (about.toolName !== undefined) base.toolName = about.toolName;
    if (about.toolCallId !== undefined) base.toolCallId = about.toolCallId;
    options.report(base);
    let result: HookRunResult;
    try {
      result = await options.runner.run(hook.spec, stdin, {
        cwd: options.cwd,
        ...(about.signal === undefined ? {} : { signal: about.signal }),
      });
    } catch (e) {
      // A runner bug must not take the step with it.
      result = {
        exitCode: null,
        stdout: "",
        stderr: "",
        timedOut: false,
        error: `it could not run: ${e instanceof Error ? e.message : String(e)}`,
        durationMs: 0,
      };
    }
    let verdict = interpretResult(hook.event, result);
    // Only the user's own hooks may answer an approval; a project's may only deny.
    if (verdict.kind === "ok" && verdict.allow === true && hook.spec.source !== "user") {
      verdict = { kind: "ok" };
    }
    const end: HookRecord = {
      ...base,
      phase: "end",
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      decision: decisionOf(verdict),
    };
    if (verdict.kind === "block") end.reason = verdict.reason;
    if (verdict.kind === "failed") end.reason = verdict.warning;
    const message = systemMessageOf(result);
    if (message !== undefined) end.systemMessage = message;
    options.report(end);
    return verdict;
  };
  return {
    has: (event, toolName) => matching(options.hooks, event, toolName).length > 0,
    async run(event, fields, about = {}) {
      const chosen = matching(options.hooks, event, about.toolName);
      if (chosen.length === 0) return combineVerdicts([]);
      const stdin = JSON.stringify({
        session_id: options.sessionId(),
        transcript_path: options.transcriptPath?.() ?? null,
        cwd: options.cwd,
        hook_event_name: event,
        ...fields,
      });
      return combineVerdicts(await Promise.all(chosen.map((h) => runOne(h, stdin, about))));
    },
  };
}

/**
 * The text-mode line for a hook that blocked, stopped the run, failed or has a `systemMessage`
 * (undefined for the others).
 */
export function hookLine(record: HookRecord): string | undefined {
  if (record.phase !== "end") return undefined;
  const what = `${record.event} hook ${JSON.stringify(record.command)}`;
  const lines: string[] = [];
  if (record.decision === "block") lines.push(`${what} blocked: ${record.reason ?? ""}`.trimEnd());
  if (record.decision === "stop") lines.push(`${what} stopped the run: ${record.reason ?? ""}`);
  if (record.decision === "failed") {
    lines.push(`${what} failed, so the step went on: ${record.reason ?? "unknown error"}`);
  }
  if (record.systemMessage !== undefined) {
    lines.push(lines.length === 0 ? `${what}: ${record.systemMessage}` : record.systemMessage);
  }
  // One line: the reporters prefix it once ("moat: warning: ").
  return lines.length === 0 ? undefined : lines.join("; ").trimEnd();
}
