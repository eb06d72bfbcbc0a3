/**
 * The batch scheduler: runs one assistant message's tool calls through the pipeline.
 * Consecutive concurrency-safe calls form a chunk (prepared sequentially in call order, then run
 * in a sliding window); other calls are barriers. Write-kind calls on the same real path are
 * serialised. Results come back in call order, one per call, whatever happens.
 */
import type { AssistantMessage, ToolCallBlock, ToolResult } from "../model/types.ts";
import type { AgentEvent } from "./events.ts";
import { createAbortGrace } from "./grace.ts";
import type { AfterToolCall, ToolCallGate } from "./hooks.ts";
import {
  type CallRecord,
  errorMessage,
  errorResult,
  executePreparedCall,
  persistableResult,
  type PipelineContext,
  type PreparedCall,
  prepareToolCall,
} from "./pipeline.ts";
import type { AnyTool, ToolUpdate } from "./tool.ts";
import type { Clock } from "./types.ts";

/** Result text of a call that never started because the run was aborted. */
const INTERRUPTED_TEXT = "(interrupted before this tool ran)";
/** Default sliding window of concurrent concurrency-safe calls. */
export const DEFAULT_CONCURRENCY = 5;

/** What `executeToolBatch` needs. */
export interface BatchOptions {
  tools: ReadonlyMap<string, AnyTool>;
  signal: AbortSignal;
  clock: Clock;
  /** Never-throwing event sink. */
  emit: (e: AgentEvent) => void;
  concurrency?: number;
  graceMs: number;
  maxResultChars: number;
  onToolCall?: ToolCallGate;
  afterToolCall?: AfterToolCall;
  /** Why a tool not offered is missing, when known (AgentOptions.unknownToolReason). */
  unknownToolReason?: (name: string) => string | undefined;
}

/** One settled call of a batch, with its UI extras. */
export interface BatchCallOutcome extends CallRecord {
  call: ToolCallBlock;
  durationMs: number;
}

/** The outcome of a batch. */
export interface BatchOutcome {
  /** One persistable result per call, in call order. */
  results: ToolResult[];
  /** Per-call outcomes in call order. */
  calls: BatchCallOutcome[];
  /** An after-hook asked to end the run. */
  terminate: boolean;
}

/** The tool calls of an assistant message, in order. */
export function toolCallsOf(message: AssistantMessage): ToolCallBlock[] {
  return message.blocks.filter((b): b is ToolCallBlock => b.type === "toolCall");
}

/**
 * Returns exactly one result per tool call of `message`, in call order: the first result given
 * for each id, or a synthetic error result with `text`. Results for unknown ids are dropped.
 */
export function fillMissingToolResults(
  message: AssistantMessage,
  results: readonly ToolResult[],
  text: string = INTERRUPTED_TEXT,
): ToolResult[] {
  const byId = new Map<string, ToolResult>();
  for (const r of results) if (!byId.has(r.toolCallId)) byId.set(r.toolCallId, r);
  return toolCallsOf(message).map((call) => {
    const found = byId.get(call.id);
    return found === undefined ? errorResult(call, text) : persistableResult(found);
  });
}

/** Why calls were refused without running. */
export type NotExecutedReason = "max_turns" | "limit" | "truncated_arguments";

/** The `details` of a refused call's result: persisted (a replay reads it), never sent to the model. */
export interface NotExecutedDetails {
  notExecuted: NotExecutedReason;
}

/** The same error result for every call, with the reason in `details`. */
export function refuseToolCalls(
  calls: readonly ToolCallBlock[],
  refusal: { text: string; reason: NotExecutedReason },
): ToolResult[] {
  const details: NotExecutedDetails = { notExecuted: refusal.reason };
  return calls.map((call) => ({ ...errorResult(call, refusal.text), details }));
}

type Segment = { safe: boolean; indices: number[] };

function segmentCalls(
  calls: readonly ToolCallBlock[],
  tools: ReadonlyMap<string, AnyTool>,
): Segment[] {
  const segments: Segment[] = [];
  calls.forEach((call, index) => {
    const tool = tools.get(call.name);
    // Unknown tools never execute, so they cannot conflict with anything.
    const safe = tool === undefined || tool.concurrencySafe === true;
    const last = segments[segments.length - 1];
    if (safe && last !== undefined && last.safe) last.indices.push(index);
    else segments.push({ safe, indices: [index] });
  });
  return segments;
}

/** Executes one batch of tool calls; never throws and resolves once every call has a result. */
export async function executeToolBatch(
  calls: readonly ToolCallBlock[],
  options: BatchOptions,
): Promise<BatchOutcome> {
  const { signal, clock, emit, tools } = options;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY));
  const pipeline: PipelineContext = { tools, signal, maxResultChars: options.maxResultChars };
  if (options.onToolCall !== undefined) pipeline.onToolCall = options.onToolCall;
  if (options.afterToolCall !== undefined) pipeline.afterToolCall = options.afterToolCall;
  if (options.unknownToolReason !== undefined) {
    pipeline.unknownToolReason = options.unknownToolReason;
  }

  const n = calls.length;
  const outcomes: Array<BatchCallOutcome | undefined> = new Array(n);
  const runningSince = new Map<number, number>();
  let nextEnd = 0;
  let unsettled = n;
  let allSettled!: () => void;
  const done = new Promise<void>((resolve) => (allSettled = resolve));

  const grace = createAbortGrace({
    signal,
    clock,
    graceMs: options.graceMs,
    onDeadline: () => {
      const seconds = Math.round(options.graceMs / 100) / 10;
      for (let i = 0; i < n; i++) {
        const call = calls[i] as ToolCallBlock;
        if (outcomes[i] !== undefined) continue;
        if (runningSince.has(i)) {
          settle(i, {
            result: errorResult(
              call,
              `Error: tool ${call.name} did not stop within ${seconds}s after the abort; its ` +
                "result was abandoned and the underlying process may still be running.",
            ),
            executed: true,
          });
        } else {
          settle(i, { result: errorResult(call, INTERRUPTED_TEXT), executed: false });
        }
      }
    },
  });

  function settle(i: number, record: CallRecord): void {
    // A late real result after the grace deadline is dropped: history already has one.
    if (outcomes[i] !== undefined) return;
    const call = calls[i] as ToolCallBlock;
    const started = runningSince.get(i);
    runningSince.delete(i);
    const durationMs = started === undefined ? 0 : Math.max(0, clock.now() - started);
    const outcome: BatchCallOutcome = {
      ...record,
      result: persistableResult(record.result),
      call,
      durationMs,
    };
    outcomes[i] = outcome;
    unsettled--;
    grace.delete(i);
    emit({
      type: "tool_settled",
      toolCallId: call.id,
      name: call.name,
      result: outcome.result,
      durationMs,
    });
    for (let next = outcomes[nextEnd]; next !== undefined; next = outcomes[nextEnd]) {
      nextEnd++;
      const end: Extract<AgentEvent, { type: "tool_end" }> = {
        type: "tool_end",
        toolCallId: next.call.id,
        name: next.call.name,
        args: next.call.arguments,
        result: next.result,
        durationMs: next.durationMs,
      };
      if (next.display !== undefined) end.display = next.display;
      if (next.blocked !== undefined) end.blocked = next.blocked;
      emit(end);
    }
    if (unsettled === 0) allSettled();
  }

  // Only a bug gets here; the call still gets a result so the batch (and history) completes.
  const internalFailure = (i: number, e: unknown) =>
    settle(i, {
      result: errorResult(
        calls[i] as ToolCallBlock,
        `Error: internal scheduler failure: ${errorMessage(e)}`,
      ),
      executed: false,
    });

  const interrupt = (i: number) =>
    settle(i, {
      result: errorResult(calls[i] as ToolCallBlock, INTERRUPTED_TEXT),
      executed: false,
    });

  // Per-path mutation queue: each write registers as the new tail of every path it changes.
  const pathTails = new Map<string, Promise<void>>();
  const lockPaths = async (paths: readonly string[]): Promise<() => void> => {
    if (paths.length === 0) return () => {};
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const waits: Promise<void>[] = [];
    for (const path of new Set(paths)) {
      const tail = pathTails.get(path);
      if (tail !== undefined) waits.push(tail);
      pathTails.set(path, held);
    }
    await Promise.all(waits);
    return release;
  };

  const run = async (i: number, prepared: Extract<PreparedCall, { kind: "ready" }>) => {
    const release = await lockPaths(prepared.writePaths);
    try {
      if (outcomes[i] !== undefined) return;
      if (signal.aborted) return interrupt(i);
      const call = calls[i] as ToolCallBlock;
      grace.add(i);
      const started = clock.now();
      runningSince.set(i, started);
      emit({ type: "tool_running", toolCallId: call.id, name: call.name });
      const record = await executePreparedCall(prepared, pipeline, (update: ToolUpdate) => {
        if (outcomes[i] === undefined) {
          const elapsedMs = Math.max(0, clock.now() - started);
          emit({ type: "tool_update", toolCallId: call.id, name: call.name, update, elapsedMs });
        }
      });
      settle(i, record);
    } finally {
      release();
    }
  };

  const prepare = async (i: number): Promise<PreparedCall | undefined> => {
    if (outcomes[i] !== undefined) return undefined;
    if (signal.aborted) {
      interrupt(i);
      return undefined;
    }
    grace.add(i);
    const prepared = await prepareToolCall(calls[i] as ToolCallBlock, pipeline);
    grace.delete(i);
    if (outcomes[i] !== undefined) return undefined;
    if (prepared.kind === "done") {
      settle(i, prepared.record);
      return undefined;
    }
    return prepared;
  };

  const runWindow = (ready: Array<[number, Extract<PreparedCall, { kind: "ready" }>]>) =>
    new Promise<void>((resolve) => {
      let next = 0;
      let active = 0;
      const pump = () => {
        while (active < concurrency && next < ready.length) {
          const [i, prepared] = ready[next++] as [number, Extract<PreparedCall, { kind: "ready" }>];
          if (outcomes[i] !== undefined) continue;
          if (signal.aborted) {
            interrupt(i);
            continue;
          }
          active++;
          run(i, prepared).catch((e) => internalFailure(i, e)).finally(() => {
            active--;
            pump();
          });
        }
        if (active === 0 && next >= ready.length) resolve();
      };
      pump();
    });

  const drive = async () => {
    for (const segment of segmentCalls(calls, tools)) {
      const ready: Array<[number, Extract<PreparedCall, { kind: "ready" }>]> = [];
      // The whole chunk is prepared (validated, approved) first, in call order.
      for (const i of segment.indices) {
        const prepared = await prepare(i);
        if (prepared?.kind === "ready") ready.push([i, prepared]);
      }
      await runWindow(ready);
    }
  };

  for (const call of calls) {
    emit({ type: "tool_start", toolCallId: call.id, name: call.name, args: call.arguments });
  }
  if (n === 0) allSettled();
  // The driver may stay blocked on an abandoned execution forever; `done` does not wait for it.
  drive().catch((e) => {
    for (let i = 0; i < n; i++) internalFailure(i, e);
  });
  await done;
  grace.dispose();

  const settled = outcomes as BatchCallOutcome[];
  return {
    results: settled.map((o) => o.result),
    calls: settled,
    terminate: settled.some((o) => o.terminate === true),
  };
}
