/**
 * The agent loop: streams a reply, runs its tool calls, sends the results back, until the model
 * answers without tools. History only ever receives complete messages, and every tool call gets
 * exactly one result, so the history is always a valid request for the next run.
 */
import {
  addUsage,
  type AssistantMessage,
  emptyUsage,
  type Message,
  ModelError,
  type ModelRequest,
  type ModelStreamOptions,
  type ToolCallBlock,
  type ToolResult,
  type ToolResultMessage,
  type ToolSpec,
} from "../model/types.ts";
import {
  type BatchOptions,
  DEFAULT_CONCURRENCY,
  executeToolBatch,
  fillMissingToolResults,
  refuseToolCalls,
  toolCallsOf,
} from "./batch.ts";
import { type AgentRunResult, forwardStream, safeEmitter } from "./events.ts";
import { type ContextKeeper, createContextKeeper, type FitResult } from "./compaction/keeper.ts";
import { DEFAULT_GRACE_MS } from "./grace.ts";
import { createHealthMonitor, type HealthSignal } from "./health.ts";
import { DEFAULT_MAX_RESULT_CHARS } from "./result_cap.ts";
import {
  finalAnswerPrompt,
  type LimitName,
  limitPhrase,
  requestFinalAnswer,
  watchWallTime,
} from "./limits.ts";
import { type AnyTool, toolSpecs } from "./tool.ts";
import type { AgentOptions, AgentRunRequest } from "./types.ts";

/** Result text of every call of a reply that ended on the output token limit. */
const TRUNCATED_CALL_TEXT =
  "Error: not executed: your reply hit the output token limit, so the arguments of this call " +
  "may be truncated. Send a complete call again (split large content into smaller calls).";

/** Builds the name → tool map; two tools with one name are a configuration bug. */
export function buildToolMap(tools: readonly AnyTool[]): Map<string, AnyTool> {
  const map = new Map<string, AnyTool>();
  for (const tool of tools) {
    if (map.has(tool.name)) {
      throw new Error(
        `Two tools are named "${tool.name}": give every tool a unique name before starting a run`,
      );
    }
    map.set(tool.name, tool);
  }
  return map;
}

/** The tools of one request: the list, its name → tool map and what the model is told. */
interface Offer {
  list: readonly AnyTool[];
  map: Map<string, AnyTool>;
  specs: ToolSpec[];
}

/** The offer of `list`, or `last` itself when the list holds the same tools (no rebuild). */
function offerOf(list: readonly AnyTool[], last?: Offer): Offer {
  if (last !== undefined && list.length === last.list.length) {
    if (list.every((tool, i) => tool === last.list[i])) return last;
  }
  return { list, map: buildToolMap(list), specs: toolSpecs(list) };
}

/**
 * Runs the agent until the model stops, the run aborts or the turn limit is reached.
 * Rejects with the model client's error (e.g. ModelError) when a request fails; history then holds
 * only complete messages.
 */
export async function runAgentLoop(
  request: AgentRunRequest,
  options: AgentOptions,
): Promise<AgentRunResult> {
  const toolsNow = options.tools;
  const currentTools = () => typeof toolsNow === "function" ? toolsNow() : toolsNow;
  let offer = offerOf(currentTools());
  const emit = safeEmitter(options.onEvent);
  const clock = options.clock;
  const userSignal = options.signal ?? new AbortController().signal;
  const limits = options.limits ?? {};
  // The wall-time limit aborts the work early enough to leave room for the final answer.
  const wall = watchWallTime(limits.maxWallTimeMs, { clock, signal: userSignal });
  const signal = wall.signal;
  const maxIterations = options.maxIterations ?? Infinity;
  const health = createHealthMonitor(options.health ?? {}, clock);
  const { history } = request;

  // Turns: model requests with tools that got a reply (what --max-turns counts). Summary
  // requests of compactions and the report request at a limit are requests, not turns.
  let turns = 0;
  let usage = emptyUsage();
  const keeper: ContextKeeper | undefined = options.context === undefined
    ? undefined
    : createContextKeeper({
      state: options.context,
      model: options.model,
      system: options.system,
      // The tools of the request being fitted.
      get tools() {
        return offer.list;
      },
      clock,
      emit,
      ...(options.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: options.maxOutputTokens }),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    });

  const save = (message: Message) => {
    history.push(message);
    emit({ type: "message_saved", message });
  };
  const saveResults = (message: AssistantMessage, results: ToolResult[]) => {
    const stored: ToolResultMessage = {
      role: "toolResult",
      results: fillMissingToolResults(message, results),
    };
    save(stored);
  };
  // Refused calls still get the same tool_start/settled/end events as executed ones.
  const refused = (
    calls: readonly ToolCallBlock[],
    refusal: Parameters<typeof refuseToolCalls>[1],
  ): ToolResult[] => {
    const results = refuseToolCalls(calls, refusal);
    calls.forEach((call, i) => {
      const result = results[i] as ToolResult;
      const base = { toolCallId: call.id, name: call.name };
      emit({ type: "tool_start", ...base, args: call.arguments });
      emit({ type: "tool_settled", ...base, result, durationMs: 0 });
      emit({ type: "tool_end", ...base, args: call.arguments, result, durationMs: 0 });
    });
    return results;
  };
  const refuse = (message: AssistantMessage, refusal: Parameters<typeof refuseToolCalls>[1]) =>
    saveResults(message, refused(toolCallsOf(message), refusal));
  const reportHealth = (signals: HealthSignal[]) => {
    for (const s of signals) emit({ type: "health", ...s });
  };
  const finish = (result: Omit<AgentRunResult, "turns" | "usage">): AgentRunResult => {
    wall.dispose();
    const full: AgentRunResult = { ...result, turns, usage };
    emit({ type: "agent_end", result: full });
    return full;
  };
  // A limit ends the run with one more request, without tools, for the model's report.
  const stopAtLimit = async (limit: LimitName): Promise<AgentRunResult> => {
    const stopReason = limit === "max_turns" ? "maxIterations" : "limitReached";
    if (limits.finalAnswer === false || userSignal.aborted) {
      return finish({ stopReason, limit, finalAnswer: false });
    }
    const prompt = finalAnswerPrompt(limit);
    const reply = await requestFinalAnswer(options.model, {
      system: options.system,
      messages: [...history, prompt],
      ...(options.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: options.maxOutputTokens }),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    }, { signal: userSignal, timeoutMs: wall.remainingMs(), clock, emit, limit });
    // Only text is an answer: a call the model made anyway has no tool to run.
    const blocks = reply?.blocks.filter((b) => b.type === "text" && b.text.trim() !== "") ?? [];
    if (reply === undefined || blocks.length === 0) {
      return finish({ stopReason, limit, finalAnswer: false });
    }
    const answer: AssistantMessage = {
      ...reply,
      blocks,
      stopReason: reply.stopReason === "toolUse" ? "stop" : reply.stopReason,
    };
    save(prompt);
    emit({ type: "message_end", message: answer, report: true });
    save(answer);
    usage = addUsage(usage, reply.usage);
    return finish({ stopReason, limit, finalAnswer: true });
  };
  // An abort by the wall-time limit is the limit, not the user's Ctrl-C.
  const stopAborted = () =>
    wall.hit() && !userSignal.aborted
      ? stopAtLimit("max_wall_time")
      : Promise.resolve(finish({ stopReason: "aborted" }));
  let toolCalls = 0;

  if (request.prompt !== undefined) save(request.prompt);

  while (true) {
    if (signal.aborted) return await stopAborted();
    // --max-turns N: N turns whose calls run, then the report instead of turn N + 1.
    if (turns >= maxIterations) return await stopAtLimit("max_turns");
    emit({ type: "turn_start", turn: turns + 1 });
    // Each request offers the tools there are now; its reply's calls run with those.
    offer = offerOf(currentTools(), offer);
    const { map: tools, specs } = offer;

    const streamOptions: ModelStreamOptions = { signal, ...forwardStream(emit) };
    const requestBody: ModelRequest = {
      system: options.system,
      messages: history,
      tools: specs,
      ...(options.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: options.maxOutputTokens }),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.responseSchema === undefined ? {} : { responseSchema: options.responseSchema }),
    };
    // Compaction, when the request would not fit or the server said it did not (twice at most).
    const fitted = (fit: FitResult): Promise<AgentRunResult> | AgentRunResult | undefined => {
      usage = addUsage(usage, fit.usage);
      if (fit.type === "aborted") return stopAborted();
      if (fit.type === "exhausted") {
        return finish({ stopReason: "contextExhausted", exhausted: fit.message });
      }
      return undefined;
    };
    if (keeper !== undefined) {
      const stop = fitted(await keeper.fit(history, { reason: "threshold", signal }));
      if (stop !== undefined) return await stop;
    }
    let message: AssistantMessage | null;
    for (let overflows = 0;; overflows++) {
      try {
        // A failed or incomplete stream throws here and propagates; nothing partial was pushed.
        message = await options.model.stream(requestBody, streamOptions);
        break;
      } catch (e) {
        if (keeper === undefined || !(e instanceof ModelError) || e.kind !== "context_overflow") {
          throw e;
        }
        if (overflows === 2) {
          return finish({
            stopReason: "contextExhausted",
            exhausted: `The model server still reported the conversation too long after ` +
              `compacting it twice: ${e.message}`,
          });
        }
        keeper.learnOverflow(history, e);
        const level = overflows === 0 ? 1 : 2;
        const fit = await keeper.fit(history, { reason: "overflow", level, signal });
        if (fit.type === "exhausted") {
          fit.message = `The model server reported the conversation too long: ${
            e.message.replace(/[.\s]*$/, ".")
          } ${fit.message}`;
        }
        const stop = fitted(fit);
        if (stop !== undefined) return await stop;
      }
    }
    if (message === null) return await stopAborted();

    emit({ type: "message_end", message });
    save(message);
    turns++;
    usage = addUsage(usage, message.usage);
    keeper?.observeReply(history, message);
    reportHealth(health.observeTurn(message));

    const calls = toolCallsOf(message);
    if (calls.length === 0) {
      // Queued messages stay queued (for the next run) once the turn limit is reached.
      const queued = signal.aborted || turns >= maxIterations
        ? []
        : (options.getQueuedMessages?.() ?? []);
      if (queued.length > 0) {
        for (const user of queued) save(user);
        continue;
      }
      const truncated = message.stopReason === "maxTokens";
      return finish(
        truncated ? { stopReason: "completed", truncated } : { stopReason: "completed" },
      );
    }

    const spent: LimitName | undefined =
      limits.maxTokensTotal !== undefined && usage.totalTokens >= limits.maxTokensTotal
        ? "max_tokens_total"
        : limits.check?.(usage);
    if (spent !== undefined) {
      refuse(message, { text: limitText(spent), reason: "limit" });
      return await stopAtLimit(spent);
    }
    if (message.stopReason === "maxTokens") {
      refuse(message, { text: TRUNCATED_CALL_TEXT, reason: "truncated_arguments" });
      continue;
    }

    const batchOptions: BatchOptions = {
      tools,
      signal,
      clock,
      emit,
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
      maxResultChars: options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
    };
    if (options.onToolCall !== undefined) batchOptions.onToolCall = options.onToolCall;
    if (options.afterToolCall !== undefined) batchOptions.afterToolCall = options.afterToolCall;
    if (options.unknownToolReason !== undefined) {
      batchOptions.unknownToolReason = options.unknownToolReason;
    }
    // Calls beyond the tool-call limit are refused; the ones within it still run.
    const allowed = limits.maxToolCalls === undefined
      ? calls.length
      : Math.max(0, Math.min(calls.length, limits.maxToolCalls - toolCalls));
    const batch = await executeToolBatch(calls.slice(0, allowed), batchOptions);
    toolCalls += allowed;
    const over = refused(calls.slice(allowed), {
      text: limitText("max_tool_calls"),
      reason: "limit",
    });
    saveResults(message, [...batch.results, ...over]);
    reportHealth(
      health.observeResults(
        batch.calls.map((c) => ({ kind: tools.get(c.call.name)?.kind, result: c.result })),
      ),
    );

    if (signal.aborted) return await stopAborted();
    if (batch.terminate) return finish({ stopReason: "completed", terminated: true });
    // The model wanted more calls than the limit leaves: that is where the run stops.
    if (allowed < calls.length) return await stopAtLimit("max_tool_calls");
  }
}

/** Result text of a call refused because a limit was reached. */
function limitText(limit: LimitName): string {
  return `(not executed: reached ${limitPhrase(limit)})`;
}
