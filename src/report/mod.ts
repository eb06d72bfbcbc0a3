/**
 * What every output mode (text, json, jsonl) is told about a run, and the counters (tool calls,
 * failures, denials, final text) that the exit code and the summaries are computed from.
 */
import type { AgentEvent, LimitName } from "../agent/mod.ts";
import type { PermissionDecision } from "../policy/check.ts";
import { addUsage, emptyUsage, type ModelErrorKind, type Usage } from "../model/types.ts";
import type { ReplayCheckSummary } from "../replay/check_text.ts";

/** How the project came to be trusted. */
export type TrustedBy = "flag" | "user_config" | "prompt";

/** The project part of `run_start`: whether it is trusted and which of its settings applied. */
export interface ProjectTrustInfo {
  /** The project root (the workspace's real path). */
  root: string;
  /** The project config file, when there is one. */
  configFile: string | null;
  trusted: boolean;
  /** Set when trusted. */
  trustedBy?: TrustedBy;
  /** Keys of the project config that took part in the settings (later layers may override them). */
  applied: string[];
  /** Sensitive keys of the project config that were left out because it is not trusted. */
  ignored: string[];
}

/** How a CLI run ended (the agent's stop reasons plus the CLI's own). */
export type RunStopReason =
  | "completed"
  | "aborted"
  | "maxIterations"
  | "error"
  | "interrupted"
  | "terminated"
  /** The conversation did not fit the context window, even compacted (exit 6). */
  | "contextExhausted"
  /** A limit other than the turn limit (see `limit`; exit 3). */
  | "limitReached"
  /** The final answer did not match --output-schema, even after asking again (exit 7). */
  | "schemaMismatch";

/**
 * How a job ended: `exited` by itself (or killed by something else), `stopped` by the model (the
 * job tool's stop), `run_end`: stopped because the run ended.
 */
export type JobEnd = "exited" | "stopped" | "run_end";

/** A job event: one `job_start` per job started, one `job_exit` once moat learns it ended. */
export type JobEvent =
  | {
    type: "job_start";
    id: string;
    command: string;
    /** The bash call that started it. */
    toolCallId: string;
  }
  | {
    type: "job_exit";
    id: string;
    command: string;
    /** The bash call that started it. */
    toolCallId: string;
    end: JobEnd;
    /** Its exit code when it exited by itself; null when a signal ended it. */
    exitCode: number | null;
    signal: string | null;
    /** Its last lines (at most 20, 2000 characters: ./jobs.ts). */
    lastLines: string;
  };

/** Facts known when a run starts. */
export interface RunStartInfo {
  model: string;
  baseUrl?: string;
  cwd: string;
  /** The effective Grants value (JSON-serialisable). */
  grants: unknown;
  /** One-line human summary of the grants. */
  grantsSummary: string;
  sandbox: string;
  /** The tools offered now (those of MCP servers still starting come later). */
  tools: string[];
  /** MCP servers still starting: their tools are offered from a later request, once ready. */
  mcpStarting?: string[];
  session: string | null;
  moatVersion: string;
  /** Set when the model's side is played back from a recording (--replay). */
  replay?: ReplayStartInfo;
  /** Whether the project is trusted and which of its config keys applied. */
  project?: ProjectTrustInfo;
  /** Lines said once on stderr after the workspace line (a granted file that does not exist). */
  notes?: readonly string[];
  /** Each stdio MCP server's view (`read … · write … · net …`), by name; --verbose shows them. */
  mcpViews?: ReadonlyArray<{ name: string; view: string }>;
}

/** The recording a replay plays back. */
export interface ReplayStartInfo {
  /** The recording's path as given. */
  file: string;
  /** The model that made the recording. */
  recordedModel: string;
  /** When the recording was started (its header's createdAt). */
  recordedAt: string;
  /** Model replies in the recording. */
  replies: number;
  /** Whether live tool results are compared with the recorded ones (--replay-check). */
  check: boolean;
}

/** How a replay went. */
export interface ReplaySummary {
  file: string;
  /** Recorded replies the run played. */
  played: number;
  replies: number;
  /** The comparison of tool results, with --replay-check. */
  check?: ReplayCheckSummary;
}

/** A model/provider failure, as reported to the user. */
export interface RunError {
  kind: ModelErrorKind | "internal" | "context_exhausted" | "schema_mismatch" | "hook_blocked";
  message: string;
  status?: number;
}

/** One denied access of a call: what was asked and what the model was told. */
export interface Denial {
  toolCallId: string;
  toolName: string;
  access: PermissionDecision["access"];
  /** The real path, program or host asked for (the MCP tool's name for "mcp"). */
  target: string;
  by: PermissionDecision["by"];
  /** The reason the model received. */
  reason: string;
  /** The flag the model was told to add, when a grant would lift the denial. */
  hint: string | null;
}

/** Facts known when a run ends. */
export interface RunSummary {
  stopReason: RunStopReason;
  /** The limit that stopped the run (stopReason maxIterations or limitReached). */
  limit?: LimitName;
  /** With a limit: the model's final answer was given (else `text` summarises the events). */
  finalAnswer?: boolean;
  /** Model requests with tools that got a reply (what --max-turns counts; not the report). */
  turns: number;
  usage: Usage;
  /** Model requests sent, retries included. */
  requests: number;
  /** Failed attempts that were tried again. */
  retries: number;
  /** What `usage` cost, when the config gives prices. */
  cost?: number;
  /** Interactive mode: the model that answered (for the status line). */
  model?: string;
  /** Interactive mode: that model's context window in tokens, when known. */
  contextWindow?: number;
  toolCalls: number;
  failed: number;
  denied: number;
  /** Every denied access (a call may have several), in the order they were decided. */
  denials?: Denial[];
  exitCode: number;
  /** The text of the last assistant reply. */
  text: string;
  /** The final answer ended on the model's output-token limit, so it is cut off. */
  truncated?: boolean;
  /** With --output-schema: the answer, valid against the schema. */
  structured?: unknown;
  error?: RunError;
  /** Set for a replay (--replay). */
  replay?: ReplaySummary;
}

/** One hook command starting or ending (JSONL `hook_start` / `hook_end`). */
export interface HookRecord {
  phase: "start" | "end";
  /** The event, e.g. "PreToolUse". */
  event: string;
  command: string;
  source: "user" | "project";
  /** The tool call it is about (tool events). */
  toolName?: string;
  toolCallId?: string;
  /** End only: the exit code (null when killed or it could not start). */
  exitCode?: number | null;
  durationMs?: number;
  /** End only: what moat made of it. */
  decision?: "none" | "block" | "stop" | "rewrite" | "context" | "allow" | "failed";
  /** End only: the block (or stop) reason or why it failed. */
  reason?: string;
  /** End only: the hook's `systemMessage`, shown to the user (never to the model). */
  systemMessage?: string;
}

/** An output mode. Methods must not throw. */
export interface Reporter {
  start(info: RunStartInfo): void;
  event(event: AgentEvent): void;
  warning(message: string): void;
  /** A replay starts an exchange with this recorded (or given) user message. */
  replayPrompt?(text: string): void;
  /** A replayed exchange that is not the last one ended with this answer. */
  replayAnswer?(text: string): void;
  /** A permission decision of the policy (allowed, approved or denied). */
  permission?(decision: PermissionDecision): void;
  /** A hook command started or ended; without it, blocks and failures come as warnings. */
  hook?(record: HookRecord): void;
  /** A background job started or was seen ended (--output jsonl; see ./jobs.ts). */
  job?(event: JobEvent): void;
  end(summary: RunSummary): void;
  /** Holds (true) or resumes (false) live output such as the spinner, e.g. while a question is asked. */
  hold?(held: boolean): void;
  /** Shows a line of the REPL's own (a queued message) once the line being streamed has ended. */
  note?(text: string): void;
  /** Stops timers (spinner); safe to call twice. */
  dispose(): void;
}

/** Counters over one or more runs' events. */
export interface RunStats {
  toolCalls: number;
  failed: number;
  denied: number;
  /** Turns, as in RunSummary. */
  turns: number;
  usage: Usage;
  /** Model requests sent (replies, summary requests, failed and retried attempts). */
  requests: number;
  retries: number;
  /** Paths the write and edit tools changed, in order, once each. */
  changed: string[];
  /** Bash commands run, in order. */
  commands: string[];
  /** Every denied access, as in RunSummary. */
  denials: Denial[];
  /** Text of the last assistant reply seen. */
  lastText: string;
  observe(event: AgentEvent): void;
  /** Counts what the policy decided outside a tool call's own check (a refused connection). */
  observeDecision(decision: PermissionDecision): void;
}

/**
 * True for a refusal while a call ran (not a blocked call): a connection bash tried that the
 * network proxy refused, a program the grants kept from bash. It counts as a denial.
 */
export function isRefusalDuringCall(decision: PermissionDecision): boolean {
  return decision.during === true && decision.outcome === "denied";
}

/** The text blocks of an assistant message, joined. */
export function assistantText(blocks: ReadonlyArray<{ type: string; text?: string }>): string {
  return blocks.filter((b) => b.type === "text").map((b) => b.text ?? "").join("");
}

/** Creates zeroed counters. */
export function createRunStats(): RunStats {
  const stats: RunStats = {
    toolCalls: 0,
    failed: 0,
    denied: 0,
    turns: 0,
    usage: emptyUsage(),
    requests: 0,
    retries: 0,
    changed: [],
    commands: [],
    denials: [],
    lastText: "",
    observe(event) {
      switch (event.type) {
        case "model_retry":
          stats.retries++;
          stats.requests++;
          return;
        case "turn_start":
        case "report_start":
          // Every turn sends one request, and so does the report at a limit (retries and
          // compactions are counted apart).
          stats.requests++;
          return;
        case "message_end":
          // The report at a limit is a reply, not a turn (what --max-turns counts).
          if (event.report !== true) stats.turns++;
          stats.usage = addUsage(stats.usage, event.message.usage);
          stats.lastText = assistantText(event.message.blocks);
          return;
        case "compaction_end":
          // A summary request is a request (not a turn) whose tokens count like any other; after
          // an overflow error, the refused request was one more.
          stats.requests += event.modelCalls + (event.reason === "overflow" ? 1 : 0);
          stats.usage = addUsage(stats.usage, event.usage);
          return;
        case "tool_end": {
          stats.toolCalls++;
          if (event.blocked !== undefined) stats.denied++;
          else if (event.result.isError) stats.failed++;
          else noteWork(stats, event.name, event.args);
          return;
        }
        default:
          return;
      }
    },
    observeDecision(decision) {
      if (isRefusalDuringCall(decision)) stats.denied++;
      if (decision.outcome === "denied") stats.denials.push(denialOf(decision));
    },
  };
  return stats;
}

function denialOf(decision: PermissionDecision): Denial {
  return {
    toolCallId: decision.toolCallId,
    toolName: decision.toolName,
    access: decision.access,
    target: decision.target,
    by: decision.by,
    reason: decision.reason ?? "",
    hint: decision.hint ?? null,
  };
}

/** Remembers what a successful call changed or ran, for a summary of the work. */
function noteWork(stats: RunStats, name: string, args: unknown): void {
  if (typeof args !== "object" || args === null) return;
  const a = args as Record<string, unknown>;
  if ((name === "write" || name === "edit") && typeof a.path === "string") {
    if (!stats.changed.includes(a.path)) stats.changed.push(a.path);
  } else if (name === "bash" && typeof a.command === "string") {
    stats.commands.push(a.command);
  }
}

/** `text` cut to its first `maxChars` characters, with a note of its full length. */
export function clipText(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}… [${text.length} chars]`;
}

/** Shortens long strings inside tool arguments so events stay small. */
export function summarizeArgs(args: unknown, maxChars = 200): unknown {
  if (typeof args === "string") return clipText(args, maxChars);
  if (Array.isArray(args)) return args.map((a) => summarizeArgs(a, maxChars));
  if (typeof args === "object" && args !== null) {
    return Object.fromEntries(
      Object.entries(args).map(([k, v]) => [k, summarizeArgs(v, maxChars)]),
    );
  }
  return args;
}

/** The text of a tool result's content. */
export function resultText(
  content: ReadonlyArray<{ type: string; text?: string }> | string,
): string {
  return typeof content === "string"
    ? content
    : content.map((b) => b.type === "text" ? b.text ?? "" : `[${b.type}]`).join("\n");
}
