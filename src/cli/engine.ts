/**
 * What every run of one invocation shares: the sandbox, the system prompt with the
 * context files, the model client's options, and runOnce (one agent run, reported and saved).
 */
import { basename } from "node:path";
import {
  type AgentEvent,
  type AgentRunResult,
  type OnToolCall,
  runAgentLoop,
  type ToolCallGate,
} from "../agent/mod.ts";
import { type Message, type ModelClient, ModelError, type UserMessage } from "../model/types.ts";
import type { Prompter } from "../policy/approve.ts";
import { formatGrants } from "../policy/grant_hints.ts";
import type { SessionWriter } from "../session/store.ts";
import type { AnyTool } from "../agent/tool.ts";
import { pricesFor, userConfigDir } from "./config.ts";
import type { Reporter, RunError, RunStats, RunStopReason, RunSummary } from "../report/mod.ts";
import type { RunSetup, SandboxHandle, SandboxRequest } from "./setup.ts";
import { buildSystemPrompt, loadContextFiles } from "./system_prompt.ts";
import { workSummary } from "../term/outcome_text.ts";
import { mcpPolicy, type McpRun, startMcp, withMcpBegin } from "./mcp.ts";
import { holdWarnings, unofferedMcpToolReason } from "./mcp_background.ts";
import { secretEnvNames } from "./model_options.ts";
import {
  endSession,
  type HookSession,
  openHooks,
  permissionHookOf,
  preCompact,
  runWithTurnHooks,
} from "./hooks.ts";
import type { Hooks } from "../hooks/mod.ts";
import { runLimits } from "./run_limits.ts";
import { createRunCheckpoints, type RunCheckpoints } from "./rewind.ts";
import { withPostToolUse, withPreToolUse } from "../hooks/tool_layer.ts";
import {
  compactionLine,
  contextStateFor,
  type ContextStates,
  lookUpContextWindow,
} from "./context.ts";

/** Context shared by every agent run of one invocation. */
export interface Engine {
  tools: AnyTool[];
  sandbox: SandboxHandle;
  system: () => string;
  /** The counters of the run going on, which see the policy's decisions too. */
  stats?: RunStats;
  /** What is known about each model's context window (compaction). */
  contexts: ContextStates;
  /** The permission policy of every call: the sandbox's, and MCP calls' own. */
  onToolCall: ToolCallGate;
  /** The MCP servers of the run, when any started (they may still be starting). */
  mcp?: McpRun;
  /** The user hooks of the run, when any apply (PreToolUse is already in onToolCall). */
  hooks?: Hooks;
  /** The session as the hooks see it. */
  session: HookSession;
  /** The rewind checkpoints of each turn (absent: none are taken). */
  checkpoints?: RunCheckpoints;
  /** Why a called tool is not offered, when its MCP server says (e.g. it is still starting). */
  unknownToolReason?: (name: string) => string | undefined;
  /**
   * The MCP warnings held since the engine opened: call right after the reporter's start and
   * report them; later ones (servers failing in the background) go straight to the reporter.
   */
  startReporting(): string[];
  /** Stops the MCP servers and closes the sandbox; must not reject. */
  close(): Promise<void>;
}

/** Opens the sandbox and builds the system prompt (with the context files) of one invocation. */
export async function openEngine(
  setup: RunSetup,
  prompter: Prompter | undefined,
  reporter: Reporter,
): Promise<{ ok: true; engine: Engine; contextWarnings: string[] } | { ok: false; error: string }> {
  const { settings } = setup;
  // --max-cost without a price would never stop anything: refuse before the run.
  if (
    settings.maxCost !== undefined && setup.recording === undefined &&
    pricesFor(settings, settings.model) === undefined
  ) {
    return {
      ok: false,
      error: `--max-cost needs the token prices of the model "${settings.model}": add ` +
        `"pricing": {"${settings.model}": {"inputPerMTok": …, "outputPerMTok": …}} to the ` +
        "user config ($XDG_CONFIG_HOME/moat/config.json, or ~/.config/moat/config.json)",
    };
  }
  const engineRef: { engine?: Engine } = {};
  const request: SandboxRequest = {
    cwd: setup.workspace,
    grants: setup.grants,
    sandbox: settings.sandbox,
    env: setup.env,
    secretEnvNames: secretEnvNames(settings),
    noPrompt: settings.noPrompt || prompter === undefined,
    onDecision: (decision) => {
      reporter.permission?.(decision);
      engineRef.engine?.stats?.observeDecision(decision);
    },
  };
  if (settings.tools !== undefined) request.tools = settings.tools;
  if (settings.bashTimeout !== undefined) request.bashTimeoutSec = settings.bashTimeout;
  if (prompter !== undefined && !settings.noPrompt) request.prompter = prompter;
  // PermissionRequest hooks answer once the hooks are open (they need the sandbox).
  const hooksRef: { hooks?: Hooks } = {};
  if (!setup.flags.noHooks) request.permissionHook = permissionHookOf(hooksRef);
  const opened = await setup.deps.openSandbox(request);
  if (!opened.ok) return opened;
  const sandbox = opened.sandbox;
  // MCP servers start (in the background) once the sandbox can confine them; their warnings wait
  // for run_start.
  const mcpWarnings = holdWarnings((message) => reporter.warning(message));
  const mcpStart = setup.recording === undefined
    ? await startMcp(setup, sandbox, {
      warn: mcpWarnings.warn,
      secretEnvNames: secretEnvNames(settings),
    })
    : { ok: true as const };
  if (!mcpStart.ok) {
    await sandbox.close();
    return mcpStart;
  }
  const mcp = mcpStart.mcp;
  // Asked as the sandbox asks: the request's hooks, then its prompter; decisions to its sink.
  const mcpCalls = mcp === undefined
    ? undefined
    : mcpPolicy(mcp, { ...request, allow: setup.flags.allowMcp });
  const policy: OnToolCall = (call) =>
    mcpCalls !== undefined && mcp?.serverOf(call.name, call.args) !== undefined
      ? mcpCalls(call)
      : sandbox.onToolCall(call);
  const session: HookSession = { id: null, path: null, started: false, pending: new Set() };
  // The trust question is settled: a project's hooks are here only in a trusted project.
  const hooked = openHooks(setup, sandbox, { reporter, session });
  if (!hooked.ok) {
    await mcp?.close();
    await sandbox.close();
    return hooked;
  }
  for (const warning of hooked.warnings) mcpWarnings.warn(warning);
  const hooks = hooked.hooks;
  if (hooks !== undefined) hooksRef.hooks = hooks;
  const configDir = userConfigDir(setup.env);
  // AGENTS.md only shapes a real model's system prompt; a replay's replies are already written.
  const context = settings.contextFiles && setup.recording === undefined
    ? await loadContextFiles(setup.fs, {
      workspace: setup.workspace,
      ...(configDir === undefined ? {} : { userConfigDir: configDir }),
    })
    : { files: [], warnings: [] };
  const checkpoints = setup.deps.rewind && createRunCheckpoints(setup.deps.rewind, {
    workspace: setup.workspace,
    now: () => setup.now().getTime(),
    warn: (message) => reporter.warning(message),
  });
  const gate = hooks === undefined ? policy : withPreToolUse(hooks, policy);
  const engine: Engine = {
    // MCP servers may change their tools (list_changed): each run takes the current list.
    get tools() {
      return mcp === undefined ? sandbox.tools : [...sandbox.tools, ...mcp.tools()];
    },
    sandbox,
    // Every call, MCP tools' too, passes the PreToolUse hooks before the policy.
    onToolCall: checkpoints?.gate(gate) ?? gate,
    ...(hooks === undefined ? {} : { hooks }),
    ...(checkpoints === undefined ? {} : { checkpoints }),
    session,
    ...(mcp === undefined
      ? {}
      : { mcp, unknownToolReason: (name) => unofferedMcpToolReason(mcp.status(), name) }),
    startReporting: mcpWarnings.release,
    async close() {
      await endSession(hooks, session);
      await mcp?.close();
      await sandbox.close();
    },
    contexts: new Map(),
    system: () => {
      const options: Parameters<typeof buildSystemPrompt>[0] = {
        date: setup.now(),
        workspace: setup.workspace,
        // Deferred MCP tools stay out: naming them all would cost what deferring saves.
        tools: engine.tools.filter((t) => t.deferred !== true).map((t) => t.name),
        grants: formatGrants(sandbox.grants),
        contextFiles: context.files,
        mcpStarting: (mcp?.status() ?? []).filter((s) => s.state === "starting").map((s) => s.name),
      };
      if (settings.systemPrompt !== undefined) options.override = settings.systemPrompt;
      if (settings.appendSystemPrompt !== undefined) options.append = settings.appendSystemPrompt;
      return buildSystemPrompt(options);
    },
  };
  engineRef.engine = engine;
  return { ok: true, engine, contextWarnings: context.warnings };
}

/** The run error for a failed run: a ModelError names its cause; anything else is a bug. */
function runErrorOf(e: unknown, compaction: boolean): RunError {
  if (e instanceof ModelError) {
    // The adapter's messages are whole sentences naming the server, the status and the fix.
    const error: RunError = {
      kind: e.kind,
      message: e.kind === "context_overflow"
        ? `${e.message.trimEnd().replace(/([^.!?])$/, "$1.")} ${
          compaction ? "" : "Compaction is off (--no-compaction or compaction: false). "
        }To go on, start a fresh conversation (/clear in interactive ` +
          "mode, or a run without -c/--session), ask for smaller steps, or use a model with a " +
          "larger context window."
        : e.message,
    };
    if (e.status !== undefined) error.status = e.status;
    return error;
  }
  return {
    kind: "internal",
    message: `Internal error: ${
      e instanceof Error ? e.message : String(e)
    }. This is a bug in moat; please report it (MOAT_DEBUG=1 shows the stack)`,
  };
}

/** One agent run over `history`, reporting events and saving messages; never rejects on a ModelError. */
export async function runOnce(
  setup: RunSetup,
  engine: Engine,
  options: {
    model: ModelClient;
    history: Message[];
    prompt: UserMessage;
    signal: AbortSignal;
    reporter: Reporter;
    stats: RunStats;
    writer: SessionWriter | null;
    maxTurns: number | undefined;
    getQueuedMessages?: () => UserMessage[];
    /** Sees every agent event after the reporter (the replay check). */
    observe?: (event: AgentEvent) => void;
    /** The model's name (default: the settings' model), for its context window. */
    modelName?: string;
    /** --output-schema: how the model gives its structured answer. */
    answer?: AnswerChannel;
    /**
     * Whether a limit ends the run with a request for the model's report (default: yes, but in
     * a replay only where the recording holds the report).
     */
    finalAnswer?: boolean;
  },
): Promise<RunOutcome> {
  engine.stats = options.stats;
  const context = contextStateFor(
    setup,
    engine.contexts,
    options.modelName ?? setup.settings.model,
  );
  const stopLookup = lookUpContextWindow(context, options.model);
  const agentOptions: Parameters<typeof runAgentLoop>[1] = {
    // The MCP servers start with the first request, which goes without them.
    model: withMcpBegin(options.model, engine.mcp),
    // Asked before every request: an MCP server that became ready is offered from the next one.
    tools: () => [...engine.tools, ...(options.answer?.tools ?? [])],
    system: options.answer === undefined
      ? engine.system()
      : `${engine.system()}\n\n${options.answer.instructions}`,
    clock: setup.clock,
    signal: options.signal,
    onToolCall: engine.onToolCall,
    onEvent: (event) => {
      if (event.type === "compaction_start") {
        preCompact(engine.hooks, engine.session, event.reason);
      }
      options.stats.observe(event);
      if (event.type === "message_saved") options.writer?.append(event.message);
      if (event.type === "compaction_end" && event.messages !== undefined) {
        options.writer?.appendCompaction(compactionLine(event, event.messages));
      }
      options.reporter.event(event);
      options.observe?.(event);
    },
  };
  if (engine.unknownToolReason !== undefined) {
    agentOptions.unknownToolReason = engine.unknownToolReason;
  }
  if (options.maxTurns !== undefined) agentOptions.maxIterations = options.maxTurns;
  if (context !== undefined) agentOptions.context = context;
  const answer = options.answer;
  if (answer?.responseSchema !== undefined) agentOptions.responseSchema = answer.responseSchema;
  if (answer !== undefined && answer.tools.length > 0) {
    const names = new Set(answer.tools.map((t) => t.name));
    // A valid final answer ends the run.
    agentOptions.afterToolCall = ({ call, result }) =>
      names.has(call.name) && !result.isError ? { terminate: true } : undefined;
  }
  if (engine.hooks !== undefined) {
    agentOptions.afterToolCall = withPostToolUse(engine.hooks, agentOptions.afterToolCall);
  }
  if (options.writer !== null) {
    engine.session.id = basename(options.writer.path, ".jsonl");
    engine.session.path = options.writer.path;
  }
  agentOptions.limits = runLimits(setup, options.modelName ?? setup.settings.model);
  if (options.finalAnswer !== undefined) agentOptions.limits.finalAnswer = options.finalAnswer;
  if (setup.settings.temperature !== undefined) {
    agentOptions.temperature = setup.settings.temperature;
  }
  if (setup.settings.maxOutputTokens !== undefined) {
    agentOptions.maxOutputTokens = setup.settings.maxOutputTokens;
  }
  if (options.getQueuedMessages !== undefined) {
    agentOptions.getQueuedMessages = options.getQueuedMessages;
  }
  try {
    const path = options.writer?.path;
    const turn = { path: path ?? "", messages: options.history.length };
    const run = () =>
      runWithTurnHooks(engine.hooks, options.prompt, {
        run: (prompt) => runAgentLoop({ history: options.history, prompt }, agentOptions),
        lastText: () => options.stats.lastText,
        signal: options.signal,
        session: engine.session,
        resumed: options.history.length > 0,
      });
    return await (engine.checkpoints?.turn(path ? turn : null, options.prompt, run) ?? run());
  } catch (e) {
    if (!(e instanceof ModelError) && setup.env.MOAT_DEBUG && e instanceof Error && e.stack) {
      setup.terminal.writeStderr(e.stack + "\n");
    }
    return { error: runErrorOf(e, context !== undefined) };
  } finally {
    await stopLookup();
  }
}

/** How the model gives a structured answer (--output-schema): tools, instructions, format. */
export interface AnswerChannel {
  tools: AnyTool[];
  /** Appended to the system prompt. */
  instructions: string;
  responseSchema?: Record<string, unknown>;
}

/** What runOnce settled with. */
export type RunOutcome = { result?: AgentRunResult; error?: RunError };

/** How a settled run ended; `aborted` = its signal fired (interactive Ctrl-C). */
export function stopReasonOf(outcome: RunOutcome, aborted: boolean): RunStopReason {
  if (outcome.error?.kind === "context_overflow") return "contextExhausted";
  if (outcome.result?.stopReason === "contextExhausted") return "contextExhausted";
  if (outcome.error !== undefined) return "error";
  if (aborted || outcome.result?.stopReason === "aborted") return "aborted";
  if (outcome.result?.stopReason === "maxIterations") return "maxIterations";
  if (outcome.result?.stopReason === "limitReached") return "limitReached";
  return "completed";
}

/** The summary the reporter ends a run with: counters, outcome, stop reason and exit code. */
export function runSummary(
  stats: RunStats,
  outcome: RunOutcome,
  end: { stopReason: RunStopReason; exitCode: number },
): RunSummary {
  const summary: RunSummary = {
    stopReason: end.stopReason,
    turns: stats.turns,
    usage: stats.usage,
    requests: stats.requests,
    retries: stats.retries,
    toolCalls: stats.toolCalls,
    failed: stats.failed,
    denied: stats.denied,
    denials: stats.denials,
    exitCode: end.exitCode,
    text: stats.lastText,
  };
  const limit = outcome.result?.limit;
  if (
    limit !== undefined && (end.stopReason === "maxIterations" || end.stopReason === "limitReached")
  ) {
    summary.limit = limit;
    summary.finalAnswer = outcome.result?.finalAnswer === true;
    // Without the model's report, the answer is moat's summary of the work.
    if (!summary.finalAnswer) summary.text = workSummary(stats, limit);
  }
  if (end.stopReason === "completed" && outcome.result?.truncated) summary.truncated = true;
  const failed = end.stopReason === "error" || end.stopReason === "contextExhausted";
  if (failed && outcome.error !== undefined) summary.error = outcome.error;
  else if (outcome.result?.exhausted !== undefined) {
    summary.error = { kind: "context_exhausted", message: outcome.result.exhausted };
  }
  return summary;
}
