/**
 * Machine-readable output. `--output jsonl`: one JSON object per line on stdout for every agent
 * event (schema in docs/events.md, each line carries `version`). `--output json`: one object at
 * the end. Both keep stdout free of anything else.
 */
import type { AgentEvent } from "../agent/mod.ts";
import type { PermissionDecision } from "../policy/check.ts";
import { replayCheckText } from "../replay/check_text.ts";
import { hookLine } from "../hooks/mod.ts";
import type { JobEvent } from "../report/jobs.ts";
import {
  assistantText,
  clipText,
  type Reporter,
  resultText,
  type RunStartInfo,
  type RunSummary,
  summarizeArgs,
} from "../report/mod.ts";

/** Version of the JSONL / JSON output schema documented in docs/events.md. */
export const EVENTS_SCHEMA_VERSION = 1;

/** Characters of a tool result kept in `tool_end.output`. */
export const TOOL_OUTPUT_PREVIEW_CHARS = 500;

/** Options of the JSONL reporter. */
export interface JsonlReporterOptions {
  writeStdout: (text: string) => void;
  /** Where human-readable warning and error lines go (stdout stays pure JSONL). */
  writeStderr?: (text: string) => void;
  /** Also emit `message_start`, `text_delta` and `tool_update` events. */
  includeDeltas?: boolean;
  /** Timestamp source (ISO strings in `time`). */
  now?: () => Date;
}

/** Turns one agent event into its JSONL record (without version/time), or null to skip it. */
export function eventRecord(
  event: AgentEvent,
  includeDeltas: boolean,
): Record<string, unknown> | null {
  switch (event.type) {
    case "turn_start":
      return { type: "turn_start", turn: event.turn };
    case "report_start":
      return { type: "report_start", limit: event.limit };
    case "message_start":
      return includeDeltas ? { type: "message_start" } : null;
    case "model_retry":
      return {
        type: "model_retry",
        attempt: event.attempt,
        maxRetries: event.maxRetries,
        cause: event.cause,
        message: event.message,
        status: event.status ?? null,
        waitMs: event.waitMs,
        midStream: event.midStream,
      };
    case "text_delta":
      return includeDeltas ? { type: "text_delta", delta: event.delta } : null;
    case "thinking_delta":
      return includeDeltas ? { type: "thinking_delta", delta: event.delta } : null;
    case "message_end": {
      const m = event.message;
      const record: Record<string, unknown> = {
        type: "message_end",
        text: assistantText(m.blocks),
        toolCalls: m.blocks.flatMap((b) =>
          b.type === "toolCall" ? [{ id: b.id, name: b.name }] : []
        ),
        stopReason: m.stopReason,
        usage: m.usage,
      };
      if (m.model !== undefined) record.model = m.model;
      if (m.thinking !== undefined) record.thinking = m.thinking;
      return record;
    }
    case "tool_start":
      return {
        type: "tool_start",
        toolCallId: event.toolCallId,
        name: event.name,
        args: summarizeArgs(event.args),
      };
    case "tool_running":
      return { type: "tool_running", toolCallId: event.toolCallId, name: event.name };
    case "tool_update":
      return includeDeltas
        ? {
          type: "tool_update",
          toolCallId: event.toolCallId,
          name: event.name,
          text: event.update.text,
        }
        : null;
    case "tool_end":
      return {
        type: "tool_end",
        toolCallId: event.toolCallId,
        name: event.name,
        args: summarizeArgs(event.args),
        durationMs: Math.round(event.durationMs),
        isError: event.result.isError,
        blocked: event.blocked ?? null,
        output: clipText(resultText(event.result.content), TOOL_OUTPUT_PREVIEW_CHARS),
      };
    case "health":
      return { type: "health", signal: event.signal, message: event.message, count: event.count };
    case "compaction_start":
      return {
        type: "compaction_start",
        reason: event.reason,
        tokens: event.tokens,
        window: event.window ?? null,
      };
    case "compaction_end":
      return {
        type: "compaction_end",
        reason: event.reason,
        outcome: event.outcome,
        method: event.method ?? null,
        modelCall: event.modelCalls > 0,
        modelCalls: event.modelCalls,
        tokensBefore: event.tokensBefore,
        tokensAfter: event.tokensAfter,
        messagesBefore: event.messagesBefore,
        messagesAfter: event.messagesAfter,
        durationMs: Math.round(event.durationMs),
        usage: event.usage,
        window: event.window ?? null,
      };
    case "message_saved":
    case "tool_settled":
    case "agent_end":
    case "model_warning":
      // Sessions hold messages; tool_end carries every settled call (in call order); run_end
      // carries the outcome; the reporters tell model warnings as warnings.
      return null;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The `run_start` record. */
export function runStartRecord(info: RunStartInfo): Record<string, unknown> {
  return {
    type: "run_start",
    moatVersion: info.moatVersion,
    model: info.model,
    baseUrl: info.baseUrl ?? null,
    cwd: info.cwd,
    grants: info.grants,
    grantsSummary: info.grantsSummary,
    sandbox: info.sandbox,
    tools: info.tools,
    ...(info.mcpStarting === undefined ? {} : { mcpStarting: info.mcpStarting }),
    session: info.session,
    ...(info.project === undefined ? {} : { project: info.project }),
    ...(info.replay === undefined ? {} : { replay: info.replay }),
  };
}

/** The `run_end` record (also the body of `--output json`, which adds `text`). */
export function runEndRecord(summary: RunSummary): Record<string, unknown> {
  const record: Record<string, unknown> = {
    type: "run_end",
    stopReason: summary.stopReason,
    limit: summary.limit ?? null,
    ...(summary.finalAnswer === undefined ? {} : { finalAnswer: summary.finalAnswer }),
    turns: summary.turns,
    usage: summary.usage,
    requests: summary.requests,
    retries: summary.retries,
    ...(summary.cost === undefined ? {} : { cost: summary.cost }),
    toolCalls: summary.toolCalls,
    failed: summary.failed,
    denied: summary.denied,
    denials: summary.denials ?? [],
    exitCode: summary.exitCode,
    truncated: summary.truncated === true,
  };
  if (summary.structured !== undefined) record.structured = summary.structured;
  if (summary.error !== undefined) record.error = summary.error;
  if (summary.replay !== undefined) record.replay = summary.replay;
  return record;
}

/** The `permission` record: exactly the documented fields. */
export function permissionRecord(decision: PermissionDecision): Record<string, unknown> {
  const record: Record<string, unknown> = {
    type: "permission",
    toolCallId: decision.toolCallId,
    toolName: decision.toolName,
    access: decision.access,
    target: decision.target,
    outcome: decision.outcome,
    by: decision.by,
  };
  if (decision.reason !== undefined) record.reason = decision.reason;
  if (decision.hint !== undefined) record.hint = decision.hint;
  if (decision.during === true) record.during = true;
  return record;
}

/** The `job_start` / `job_exit` record: exactly the documented fields. */
export function jobRecord(event: JobEvent): Record<string, unknown> {
  switch (event.type) {
    case "job_start":
      return {
        type: "job_start",
        id: event.id,
        command: event.command,
        toolCallId: event.toolCallId,
      };
    case "job_exit":
      return {
        type: "job_exit",
        id: event.id,
        command: event.command,
        toolCallId: event.toolCallId,
        end: event.end,
        exitCode: event.exitCode,
        signal: event.signal,
        lastLines: event.lastLines,
      };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** Creates the `--output jsonl` reporter. */
export function createJsonlReporter(options: JsonlReporterOptions): Reporter {
  const now = options.now ?? (() => new Date());
  const emit = (record: Record<string, unknown>) => {
    options.writeStdout(
      JSON.stringify({ version: EVENTS_SCHEMA_VERSION, time: now().toISOString(), ...record }) +
        "\n",
    );
  };
  const warning = (message: string) => {
    emit({ type: "warning", message });
    options.writeStderr?.(`moat: warning: ${message}\n`);
  };
  let ended = false;
  return {
    start: (info) => {
      // stdout is the event stream: notes go to stderr, as in text mode.
      for (const note of info.notes ?? []) options.writeStderr?.(`${note}\n`);
      emit(runStartRecord(info));
    },
    event(event) {
      if (event.type === "model_warning") return warning(event.message);
      const record = eventRecord(event, options.includeDeltas ?? false);
      if (record !== null) emit(record);
    },
    warning,
    permission: (decision) => emit(permissionRecord(decision)),
    job: (event) => emit(jobRecord(event)),
    hook(record) {
      const { phase, ...fields } = record;
      // run_end stays the last record: SessionEnd hooks run after it and are not in the stream.
      if (!ended) emit({ type: phase === "start" ? "hook_start" : "hook_end", ...fields });
      const line = hookLine(record);
      if (line !== undefined) options.writeStderr?.(`moat: warning: ${line}\n`);
    },
    end(summary) {
      if (summary.error !== undefined) {
        emit({ type: "error", ...summary.error });
        options.writeStderr?.(`moat: error: ${summary.error.message}\n`);
      }
      const check = summary.replay?.check;
      if (check !== undefined) options.writeStderr?.(replayCheckText(check));
      emit(runEndRecord(summary));
      ended = true;
    },
    dispose() {},
  };
}

/** Creates the `--output json` reporter: one object on stdout when the run ends. */
export function createJsonReporter(
  options: { writeStdout: (text: string) => void; writeStderr: (text: string) => void },
): Reporter {
  let start: RunStartInfo | undefined;
  const warnings: string[] = [];
  const warning = (message: string) => {
    warnings.push(message);
    options.writeStderr(`moat: warning: ${message}\n`);
  };
  return {
    start: (info) => {
      start = info;
      for (const note of info.notes ?? []) options.writeStderr(`${note}\n`);
    },
    event(event) {
      if (event.type === "model_warning") warning(event.message);
    },
    warning,
    end(summary) {
      if (summary.error !== undefined) {
        options.writeStderr(`moat: error: ${summary.error.message}\n`);
      }
      const check = summary.replay?.check;
      if (check !== undefined) options.writeStderr(replayCheckText(check));
      const { type: _type, ...end } = runEndRecord(summary);
      options.writeStdout(
        JSON.stringify({
          version: EVENTS_SCHEMA_VERSION,
          type: "result",
          text: summary.text,
          ...end,
          model: start?.model ?? null,
          session: start?.session ?? null,
          warnings,
        }) + "\n",
      );
    },
    dispose() {},
  };
}
