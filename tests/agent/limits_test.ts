/**
 * Run limits: turns, tool calls, total tokens, a caller's check (cost) and wall time. Each ends the
 * run (refusing calls beyond the limit), asks once more without tools for a final answer, and
 * keeps history valid.
 */
import assert from "node:assert/strict";
import { runAgentLoop } from "../../src/agent/mod.ts";
import {
  finalAnswerPrompt,
  finalAnswerReserveMs,
  limitPhrase,
  type RunLimits,
} from "../../src/agent/limits.ts";
import type { AgentOptions } from "../../src/agent/types.ts";
import type { AnyTool, ToolOutput } from "../../src/agent/tool.ts";
import {
  type AssistantMessage,
  type Message,
  ModelError,
  type ToolResultMessage,
  type Usage,
} from "../../src/model/types.ts";
import { assertHistoryAcceptable } from "../support/history_check.ts";
import { createManualClock } from "../support/manual_clock.ts";
import { scripted, ScriptedModelClient, type ScriptedStep } from "../support/scripted_model.ts";
import { controlledTool, eventLog, flush, until, user } from "./_helpers.ts";

/** A tool that records which calls ran and answers at once. */
function recordingTool(): { tool: AnyTool; ran: string[] } {
  const ran: string[] = [];
  const tool = controlledTool("act", {
    concurrencySafe: true,
    run: (args) => {
      ran.push(args.id ?? "?");
      return Promise.resolve({ output: `ran ${args.id}` });
    },
  });
  return { tool, ran };
}

/** `ids` as calls of the "act" tool (the id is also the call id). */
function acts(...ids: string[]) {
  return scripted.toolCalls(ids.map((id) => ({ id, name: "act", args: { id } })));
}

function resultsOf(message: Message | undefined): ToolResultMessage["results"] {
  assert.equal(message?.role, "toolResult");
  return (message as ToolResultMessage).results;
}

function run(
  model: ScriptedModelClient,
  history: Message[],
  extra: Partial<AgentOptions> & Pick<AgentOptions, "tools">,
) {
  return runAgentLoop({ history, prompt: user("go") }, {
    model,
    system: "sys",
    clock: createManualClock(),
    ...extra,
  });
}

Deno.test("finalAnswerReserveMs() keeps 15 % of the wall time, at least 1 s, at most 60 s and half", () => {
  assert.equal(finalAnswerReserveMs(10_000), 1_500);
  assert.equal(finalAnswerReserveMs(100_000), 15_000);
  assert.equal(finalAnswerReserveMs(4_000), 1_000, "at least 1 s");
  assert.equal(finalAnswerReserveMs(1_000_000), 60_000, "at most 60 s");
  assert.equal(finalAnswerReserveMs(1_000), 500, "never more than half");
});

Deno.test("finalAnswerPrompt() names the limit and its flag and says tools are gone", () => {
  assert.match(
    String(finalAnswerPrompt("max_tool_calls").content),
    /tool-call limit \(--max-tool-calls\)/,
  );
  assert.match(String(finalAnswerPrompt("max_cost").content), /cost limit \(--max-cost\)/);
  assert.match(String(finalAnswerPrompt("max_turns").content), /tools are no longer available/);
  assert.equal(limitPhrase("max_tokens_total", 1500), "token limit of 1,500 (--max-tokens-total)");
  assert.equal(limitPhrase("max_wall_time", 30), "wall-time limit of 30 s (--max-wall-time)");
});

Deno.test("runAgentLoop() with maxIterations N runs N turns' calls, then saves a report asked without tools", async () => {
  const { tool, ran } = recordingTool();
  const model = new ScriptedModelClient([
    acts("a", "b"),
    acts("c"),
    scripted.text("Ran a, b and c."),
  ]);
  const history: Message[] = [];
  const log = eventLog();
  const result = await run(model, history, {
    tools: [tool],
    maxIterations: 2,
    onEvent: log.onEvent,
  });

  assert.equal(result.stopReason, "maxIterations");
  assert.equal(result.limit, "max_turns");
  assert.equal(result.finalAnswer, true);
  assert.equal(result.turns, 2, "the report is a reply, not a turn");
  assert.equal(result.usage.totalTokens, 330);
  assert.deepEqual(ran, ["a", "b", "c"], "every call of both turns ran");
  assert.deepEqual(resultsOf(history[4]).map((r) => [r.toolCallId, r.isError]), [["c", false]]);
  const final = model.requests[2];
  assert.deepEqual(final?.tools, []);
  assert.deepEqual(final?.messages, [...history.slice(0, 5), finalAnswerPrompt("max_turns")]);
  assert.deepEqual(history.map((m) => m.role), [
    "user",
    "assistant",
    "toolResult",
    "assistant",
    "toolResult",
    "user",
    "assistant",
  ]);
  assert.deepEqual(history[5], finalAnswerPrompt("max_turns"));
  assert.deepEqual((history[6] as AssistantMessage).blocks, [
    { type: "text", text: "Ran a, b and c." },
  ]);
  assert.deepEqual(log.of("message_end").at(-1), {
    type: "message_end",
    message: history[6],
    report: true,
  });
  assert.deepEqual(log.of("message_end").map((e) => e.report), [undefined, undefined, true]);
  assert.deepEqual(log.of("message_saved").map((e) => e.message), history);
  // Turn numbers end at the limit; the report request has its own event.
  assert.deepEqual(log.of("turn_start").map((e) => e.turn), [1, 2]);
  assert.deepEqual(log.of("report_start"), [{ type: "report_start", limit: "max_turns" }]);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() answers within the turn limit without a report, and queues nothing past it", async () => {
  const { tool } = recordingTool();
  const model = new ScriptedModelClient([acts("a"), scripted.text("Done.")]);
  const history: Message[] = [];
  let asked = 0;
  const result = await run(model, history, {
    tools: [tool],
    maxIterations: 2,
    getQueuedMessages: () => {
      asked++;
      return [user("more")];
    },
  });
  assert.equal(result.stopReason, "completed");
  assert.equal(result.turns, 2);
  assert.equal(model.requests.length, 2);
  assert.equal(asked, 0, "the queued message stays queued once the limit is reached");
});

Deno.test("runAgentLoop() keeps only the text of a final answer that calls a tool anyway", async () => {
  const { tool, ran } = recordingTool();
  const model = new ScriptedModelClient([
    acts("a"),
    scripted.toolCalls([{ id: "late", name: "act", args: { id: "late" } }], {
      text: "Summary of the work.",
    }),
  ]);
  const history: Message[] = [];
  const result = await run(model, history, { tools: [tool], maxIterations: 1 });

  assert.equal(result.finalAnswer, true);
  assert.deepEqual(ran, ["a"], "the report's call never runs");
  const answer = history.at(-1) as AssistantMessage;
  assert.deepEqual(answer.blocks, [{ type: "text", text: "Summary of the work." }]);
  assert.equal(answer.stopReason, "stop");
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() saves nothing more when the final reply has only tool calls or fails", async () => {
  for (
    const last of [
      scripted.toolCalls([{ id: "late", name: "act", args: {} }]),
      scripted.text("   "),
      scripted.fail(new ModelError("server", "HTTP 500")),
    ]
  ) {
    const { tool } = recordingTool();
    const model = new ScriptedModelClient([acts("a"), last]);
    const history: Message[] = [];
    const log = eventLog();
    const result = await run(model, history, {
      tools: [tool],
      maxIterations: 1,
      onEvent: log.onEvent,
    });
    assert.equal(result.stopReason, "maxIterations");
    assert.equal(result.finalAnswer, false);
    assert.equal(model.requests.length, 2);
    assert.deepEqual(history.map((m) => m.role), ["user", "assistant", "toolResult"]);
    assert.equal(log.of("message_end").length, 1);
    assertHistoryAcceptable(history);
  }
});

Deno.test("runAgentLoop() with finalAnswer false stops at the limit without another request", async () => {
  const { tool } = recordingTool();
  const model = new ScriptedModelClient([acts("a"), scripted.text("never requested")]);
  const history: Message[] = [];
  const result = await run(model, history, {
    tools: [tool],
    maxIterations: 1,
    limits: { finalAnswer: false },
  });
  assert.equal(result.stopReason, "maxIterations");
  assert.equal(result.finalAnswer, false);
  assert.equal(model.requests.length, 1);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() runs the calls within the tool-call limit and refuses the rest", async () => {
  const { tool, ran } = recordingTool();
  const model = new ScriptedModelClient([
    acts("a", "b"),
    acts("c", "d"),
    scripted.text("Ran three calls; d remains."),
  ]);
  const history: Message[] = [];
  const log = eventLog();
  const result = await run(model, history, {
    tools: [tool],
    limits: { maxToolCalls: 3 },
    onEvent: log.onEvent,
  });

  assert.equal(result.stopReason, "limitReached");
  assert.equal(result.limit, "max_tool_calls");
  assert.equal(result.finalAnswer, true);
  assert.deepEqual(ran, ["a", "b", "c"]);
  const second = resultsOf(history[4]);
  assert.deepEqual(second.map((r) => [r.toolCallId, r.isError]), [["c", false], ["d", true]]);
  assert.equal(second[1]?.content, "(not executed: reached tool-call limit (--max-tool-calls))");
  assert.deepEqual(second[1]?.details, { notExecuted: "limit" });
  assert.deepEqual(log.of("tool_end").map((e) => e.toolCallId), ["a", "b", "c", "d"]);
  assert.deepEqual(model.requests[2]?.tools, []);
  assert.deepEqual(model.requests[2]?.messages.at(-1), finalAnswerPrompt("max_tool_calls"));
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() completes normally when the model stops after exactly the tool-call limit", async () => {
  const { tool, ran } = recordingTool();
  const model = new ScriptedModelClient([acts("a", "b"), scripted.text("done")]);
  const history: Message[] = [];
  const result = await run(model, history, { tools: [tool], limits: { maxToolCalls: 2 } });
  assert.equal(result.stopReason, "completed");
  assert.equal(result.limit, undefined);
  assert.deepEqual(ran, ["a", "b"]);
  assert.equal(model.requests.length, 2);
  assert.deepEqual(model.requests[1]?.tools.map((t) => t.name), ["act"]);
});

Deno.test("runAgentLoop() refuses every call of a reply once the tool-call limit is used up", async () => {
  const { tool, ran } = recordingTool();
  const model = new ScriptedModelClient([acts("a", "b"), acts("c"), scripted.text("report")]);
  const history: Message[] = [];
  const result = await run(model, history, { tools: [tool], limits: { maxToolCalls: 2 } });
  assert.equal(result.stopReason, "limitReached");
  assert.equal(result.limit, "max_tool_calls");
  assert.equal(result.finalAnswer, true);
  assert.deepEqual(ran, ["a", "b"]);
  assert.deepEqual(resultsOf(history[4]).map((r) => r.details), [{ notExecuted: "limit" }]);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() stops at the token limit once a reply with calls reaches it", async () => {
  const { tool, ran } = recordingTool();
  // Every scripted reply uses 110 tokens.
  const model = new ScriptedModelClient([acts("a"), acts("b"), scripted.text("report")]);
  const history: Message[] = [];
  const result = await run(model, history, { tools: [tool], limits: { maxTokensTotal: 220 } });
  assert.equal(result.stopReason, "limitReached");
  assert.equal(result.limit, "max_tokens_total");
  assert.equal(result.finalAnswer, true);
  assert.equal(result.usage.totalTokens, 330, "the final answer's usage counts");
  assert.deepEqual(ran, ["a"]);
  assert.deepEqual(resultsOf(history[4]).map((r) => [r.toolCallId, r.details]), [
    ["b", { notExecuted: "limit" }],
  ]);
  assert.match(String(resultsOf(history[4])[0]?.content), /token limit \(--max-tokens-total\)/);
  assert.deepEqual(model.requests[2]?.messages.at(-1), finalAnswerPrompt("max_tokens_total"));
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() completes a reply without calls even beyond the token limit", async () => {
  const model = new ScriptedModelClient([scripted.text("short answer")]);
  const history: Message[] = [];
  const result = await run(model, history, {
    tools: [recordingTool().tool],
    limits: { maxTokensTotal: 50 },
  });
  assert.equal(result.stopReason, "completed");
  assert.equal(result.limit, undefined);
  assert.equal(model.requests.length, 1);
});

Deno.test("runAgentLoop() stops at the cost limit its check reports from the usage so far", async () => {
  const { tool, ran } = recordingTool();
  const seen: number[] = [];
  const limits: RunLimits = {
    check: (usage: Usage) => {
      seen.push(usage.totalTokens);
      return usage.totalTokens > 150 ? "max_cost" : undefined;
    },
  };
  const model = new ScriptedModelClient([acts("a"), acts("b"), scripted.text("report")]);
  const history: Message[] = [];
  const result = await run(model, history, { tools: [tool], limits });
  assert.equal(result.stopReason, "limitReached");
  assert.equal(result.limit, "max_cost");
  assert.equal(result.finalAnswer, true);
  assert.deepEqual(seen, [110, 220]);
  assert.deepEqual(ran, ["a"]);
  assert.deepEqual(model.requests[2]?.messages.at(-1), finalAnswerPrompt("max_cost"));
  assertHistoryAcceptable(history);
});

/** A tool that runs until its signal aborts, then reports that it stopped. */
function waitingTool(): { tool: AnyTool; signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  const tool = controlledTool("wait", {
    run: (_args, signal) => {
      signals.push(signal);
      return new Promise<ToolOutput>((resolve) => {
        signal.addEventListener("abort", () => resolve({ output: "stopped", isError: true }), {
          once: true,
        });
      });
    },
  });
  return { tool, signals };
}

/**
 * Starts a run under a wall-time limit whose first reply calls `tool` once (call id `callId`) and
 * whose next reply is `then`; resolves once the tool is running.
 */
async function startTimedCall(
  tool: AnyTool,
  callId: string,
  then: ScriptedStep,
  extra: Partial<AgentOptions> & { limits: RunLimits },
) {
  const clock = createManualClock();
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: callId, name: tool.name, args: {} }]),
    then,
  ]);
  const history: Message[] = [];
  const log = eventLog();
  const pending = run(model, history, { tools: [tool], clock, onEvent: log.onEvent, ...extra });
  await until(() => log.of("tool_running").length === 1, "the tool running");
  return { clock, model, history, log, pending };
}

Deno.test("runAgentLoop() stops the work at the wall-time limit minus the reserve and asks for a final answer", async () => {
  const { tool, signals } = waitingTool();
  const { clock, model, history, pending } = await startTimedCall(
    tool,
    "w",
    scripted.text("The wait was cut off."),
    { limits: { maxWallTimeMs: 10_000 } },
  );
  clock.tick(8_499);
  assert.equal(signals[0]?.aborted, false, "1.5 s are kept for the final answer");
  clock.tick(1);
  const result = await pending;

  assert.equal(signals[0]?.aborted, true);
  assert.equal(result.stopReason, "limitReached");
  assert.equal(result.limit, "max_wall_time");
  assert.equal(result.finalAnswer, true);
  assert.deepEqual(resultsOf(history[2]).map((r) => r.content), ["stopped"]);
  assert.deepEqual(model.requests[1]?.tools, []);
  assert.deepEqual(history.at(-2), finalAnswerPrompt("max_wall_time"));
  assert.equal(clock.pending(), 0, "no timer left behind");
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() gives the final request only the time left until the wall-time limit", async () => {
  const { clock, model, history, log, pending } = await startTimedCall(
    waitingTool().tool,
    "w",
    scripted.hang(["Partial "]),
    { limits: { maxWallTimeMs: 10_000 } },
  );
  clock.tick(8_500);
  await until(() => model.requests.length === 2, "the final request");
  clock.tick(1_499);
  let settled = false;
  pending.then(() => settled = true, () => settled = true);
  await flush();
  assert.equal(log.of("text_delta").length, 1, "the final reply started streaming");
  assert.equal(settled, false, "the final request may use the whole reserve");
  clock.tick(1);
  const result = await pending;

  assert.equal(result.stopReason, "limitReached");
  assert.equal(result.limit, "max_wall_time");
  assert.equal(result.finalAnswer, false);
  assert.deepEqual(history.map((m) => m.role), ["user", "assistant", "toolResult"]);
  assert.equal(clock.pending(), 0);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() stops a model request at the wall-time limit and still asks for the final answer", async () => {
  const clock = createManualClock();
  const model = new ScriptedModelClient([scripted.hang(), scripted.text("Nothing done yet.")]);
  const history: Message[] = [];
  const pending = run(model, history, {
    tools: [recordingTool().tool],
    clock,
    limits: { maxWallTimeMs: 10_000 },
  });
  await until(() => model.requests.length === 1, "the first request");
  clock.tick(8_500);
  const result = await pending;
  assert.equal(result.stopReason, "limitReached");
  assert.equal(result.limit, "max_wall_time");
  assert.equal(result.finalAnswer, true);
  assert.deepEqual(history.map((m) => m.role), ["user", "user", "assistant"]);
  assert.equal(clock.pending(), 0);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() skips the final request when less than 250 ms of wall time are left", async () => {
  const release = Promise.withResolvers<void>();
  const stubborn = controlledTool("slow", {
    // Ignores the abort until the test releases it.
    run: async () => {
      await release.promise;
      return { output: "finished late" };
    },
  });
  const { clock, model, history, log, pending } = await startTimedCall(
    stubborn,
    "s",
    scripted.text("never requested"),
    { limits: { maxWallTimeMs: 1_000 } },
  );
  clock.tick(500);
  clock.tick(300);
  release.resolve();
  const result = await pending;

  assert.equal(result.stopReason, "limitReached");
  assert.equal(result.limit, "max_wall_time");
  assert.equal(result.finalAnswer, false);
  assert.equal(model.requests.length, 1);
  assert.equal(log.of("turn_start").length, 1, "no turn starts without a request");
  assert.deepEqual(resultsOf(history[2]).map((r) => r.content), ["finished late"]);
  assert.equal(clock.pending(), 0);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() reports a user abort under a wall-time limit as aborted, not as the limit", async () => {
  const controller = new AbortController();
  const { clock, model, history, pending } = await startTimedCall(
    waitingTool().tool,
    "w",
    scripted.text("never requested"),
    { signal: controller.signal, limits: { maxWallTimeMs: 10_000 } },
  );
  controller.abort();
  const result = await pending;
  assert.equal(result.stopReason, "aborted");
  assert.equal(result.limit, undefined);
  assert.equal(model.requests.length, 1);
  assert.equal(clock.pending(), 0);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() clears the wall-time timer when the run completes in time", async () => {
  const clock = createManualClock();
  const model = new ScriptedModelClient([scripted.text("quick")]);
  const result = await run(model, [], {
    tools: [],
    clock,
    limits: { maxWallTimeMs: 10_000 },
  });
  assert.equal(result.stopReason, "completed");
  assert.equal(clock.pending(), 0);
});
