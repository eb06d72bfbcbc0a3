/**
 * The user hooks of a run, wired: which apply (none with --no-hooks; a project's only in a
 * trusted project, as settled by the trust question before anything runs), how they are
 * reported, and UserPromptSubmit and Stop around each prompt's run.
 */
import type { AgentRunResult } from "../agent/mod.ts";
import type { UserMessage } from "../model/types.ts";
import type { HookRecord, Reporter, RunError } from "../report/mod.ts";
import { configuredHooks, createHooks, hookLine, type Hooks } from "../hooks/mod.ts";
import { permissionAnswer, startSession, stopHookReason, submitPrompt } from "../hooks/turn.ts";
import { describeLocation, type PermissionHook } from "../policy/approve.ts";
import type { RunSetup, SandboxHandle } from "./setup.ts";

/** Reports a hook: JSONL records, or (text) a stderr line when it blocked or failed. */
function reportHook(reporter: Reporter, record: HookRecord): void {
  if (reporter.hook !== undefined) return reporter.hook(record);
  const line = hookLine(record);
  if (line !== undefined) reporter.warning(line);
}

/**
 * The hooks of a run, or undefined when none apply; an invalid matcher is an error before the
 * run. `session` names the run's session (and its file) once it has one.
 */
export function openHooks(
  setup: RunSetup,
  sandbox: SandboxHandle,
  options: { reporter: Reporter; session: HookSession },
): { ok: true; hooks?: Hooks; warnings: string[] } | { ok: false; error: string } {
  if (setup.flags.noHooks) return { ok: true, warnings: [] };
  const configured = configuredHooks(setup.settings.hooks);
  if (!configured.ok) return configured;
  if (configured.hooks.length === 0) return { ok: true, warnings: configured.warnings };
  const warnings = [...configured.warnings];
  const unconfined = configured.hooks.filter((h) => !h.spec.sandbox);
  for (const hook of new Set(unconfined.map((h) => h.spec.command))) {
    warnings.push(`The hook ${JSON.stringify(hook)} runs outside the sandbox ("sandbox": false)`);
  }
  const create = setup.deps.createHookRunner;
  if (create === undefined) {
    warnings.push("Hooks are configured but cannot run here; they are skipped");
    return { ok: true, warnings };
  }
  const hooks = createHooks({
    hooks: configured.hooks,
    // Scripts written for Claude Code find the project as they do there.
    runner: create(sandbox, {
      MOAT_PROJECT_DIR: setup.workspace,
      CLAUDE_PROJECT_DIR: setup.workspace,
    }),
    cwd: setup.workspace,
    sessionId: () => options.session.id,
    transcriptPath: () => options.session.path,
    report: (record) => reportHook(options.reporter, record),
  });
  return { ok: true, hooks, warnings };
}

/**
 * One prompt's run between its UserPromptSubmit and Stop hooks (and SessionStart before the
 * session's first): a blocked prompt is not sent
 * (a `hook_blocked` run error); a Stop hook may send the model back to work once, with its
 * reason as the next message.
 */
export async function runWithTurnHooks(
  hooks: Hooks | undefined,
  prompt: UserMessage,
  options: {
    run: (prompt: UserMessage) => Promise<AgentRunResult>;
    lastText: () => string;
    signal: AbortSignal;
    /** Before the session's first run, SessionStart runs and its context joins the prompt. */
    session: HookSession;
    /** The history holds earlier messages (SessionStart's `source` is "resume"). */
    resumed: boolean;
  },
): Promise<{ result: AgentRunResult } | { error: RunError }> {
  if (hooks === undefined) return { result: await options.run(prompt) };
  const first = !options.session.started;
  options.session.started = true;
  const context = first
    ? await startSession(hooks, options.resumed ? "resume" : "startup", options.signal)
    : [];
  const submitted = await submitPrompt(hooks, prompt, { signal: options.signal, context });
  if (!submitted.ok) {
    return {
      error: {
        kind: "hook_blocked",
        message: `A UserPromptSubmit hook blocked the prompt: ${submitted.reason}`,
      },
    };
  }
  let result = await options.run(submitted.prompt);
  let active = false;
  while (result.stopReason === "completed" && result.terminated !== true) {
    const reason = await stopHookReason(hooks, {
      active,
      lastText: options.lastText(),
      signal: options.signal,
    });
    if (reason === undefined || options.signal.aborted) break;
    active = true;
    result = await options.run({
      role: "user",
      content: `A Stop hook asked you to go on before stopping: ${reason}`,
    });
  }
  return { result };
}

/** Runs the SessionEnd hooks (when a session started) and waits for PreCompact ones; never rejects. */
export async function endSession(hooks: Hooks | undefined, state: HookSession): Promise<void> {
  if (hooks === undefined) return;
  await Promise.all(state.pending);
  if (state.started) await hooks.run("SessionEnd", { reason: "other" });
}

/** What the hooks know about the session of an engine. */
export interface HookSession {
  /** The session id hooks are told (`session_id`), once a run has one. */
  id: string | null;
  /** The session file hooks are told (`transcript_path`), once a run writes one. */
  path: string | null;
  /** SessionStart ran. */
  started: boolean;
  /** PreCompact hooks still running (they only observe: compaction does not wait). */
  pending: Set<Promise<unknown>>;
}

/** Starts the PreCompact hooks of a compaction; they are awaited when the session ends. */
export function preCompact(
  hooks: Hooks | undefined,
  state: HookSession,
  reason: "threshold" | "overflow" | "manual",
): void {
  if (hooks === undefined || !hooks.has("PreCompact")) return;
  const trigger = reason === "manual" ? "manual" : "auto";
  const running = hooks.run("PreCompact", { trigger, custom_instructions: "" });
  state.pending.add(running);
  void running.finally(() => state.pending.delete(running));
}

/** The sandbox's PermissionRequest hook, asking the run's hooks once they are open. */
export function permissionHookOf(ref: { hooks?: Hooks }): PermissionHook {
  return (request) => {
    const hooks = ref.hooks;
    if (hooks === undefined) return Promise.resolve(undefined);
    // Without a location the call is approved as a whole: an MCP tool.
    const permission = request.location === undefined
      ? { location: { access: "mcp" }, target: request.toolName }
      : { target: describeLocation(request.location).target };
    return permissionAnswer(hooks, { ...request, ...permission });
  };
}
