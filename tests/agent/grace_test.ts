import assert from "node:assert/strict";
import { runAgentLoop } from "../../src/agent/mod.ts";
import type { Message, ToolResultMessage } from "../../src/model/types.ts";
import type { ToolOutput } from "../../src/agent/tool.ts";
import { assertHistoryAcceptable } from "../support/history_check.ts";
import { scripted, ScriptedModelClient } from "../support/scripted_model.ts";
import { controlledTool, eventLog, flush, ManualClock, until, user } from "./_helpers.ts";

Deno.test("runAgentLoop() abandons a stuck tool after the grace deadline and interrupts the rest on abort", async () => {
  const controller = new AbortController();
  const clock = new ManualClock();
  const fastSettled = Promise.withResolvers<void>();
  const stuckGate = Promise.withResolvers<ToolOutput>();
  let stuckSignal: AbortSignal | undefined;
  let laterRan = false;

  const fast = controlledTool("fast", {
    concurrencySafe: true,
    run: () => Promise.resolve({ output: "fast result" }),
  });
  const stuck = controlledTool("stuck", {
    concurrencySafe: true,
    run: async (_args, signal) => {
      stuckSignal = signal;
      await fastSettled.promise;
      controller.abort();
      // Ignores the signal, like a process that does not die.
      return await stuckGate.promise;
    },
  });
  const later = controlledTool("later", {
    run: () => {
      laterRan = true;
      return Promise.resolve({ output: "never" });
    },
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls([
      { id: "f", name: "fast", args: {} },
      { id: "s", name: "stuck", args: {} },
      { id: "l", name: "later", args: {} },
      { id: "f2", name: "fast", args: {} },
    ]),
    scripted.text("must never be requested"),
  ]);
  const history: Message[] = [];
  const log = eventLog();
  const run = runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [fast, stuck, later],
    system: "",
    clock,
    signal: controller.signal,
    onEvent: (e) => {
      log.onEvent(e);
      if (e.type === "tool_settled" && e.toolCallId === "f") fastSettled.resolve();
    },
  });

  await clock.waitForTimer();
  assert.equal(clock.pending, 1, "one deadline for the whole batch");
  assert.equal(stuckSignal?.aborted, true, "the tool saw the abort");
  clock.advance(9_999);
  await flush();
  assert.equal(log.of("tool_settled").some((e) => e.toolCallId === "s"), false);
  clock.advance(1);
  const result = await run;

  assert.equal(result.stopReason, "aborted");
  assert.equal(model.requests.length, 1, "the next request is never sent");
  assert.equal(laterRan, false);
  assert.equal(clock.pending, 0);
  const results = (history[2] as ToolResultMessage).results;
  assert.deepEqual(results.map((r) => [r.toolCallId, r.isError]), [
    ["f", false],
    ["s", true],
    ["l", true],
    ["f2", true],
  ]);
  assert.equal(results[0]?.content, "fast result");
  assert.match(String(results[1]?.content), /^Error: tool stuck did not stop within 10s/);
  assert.match(String(results[1]?.content), /abandoned.*may still be running/);
  assert.equal(results[2]?.content, "(interrupted before this tool ran)");
  assert.equal(results[3]?.content, "(interrupted before this tool ran)");
  assert.equal(log.of("tool_end").length, 4);
  assertHistoryAcceptable(history);

  // A late real result is dropped: nothing changes and no event reports it.
  const snapshot = structuredClone(history);
  const eventCount = log.events.length;
  stuckGate.resolve({ output: "late result" });
  await flush();
  assert.deepEqual(history, snapshot);
  assert.equal(log.events.length, eventCount);
});

Deno.test("runAgentLoop() keeps the real result when a tool stops within the grace and clears the timer", async () => {
  const controller = new AbortController();
  const clock = new ManualClock();
  const tool = controlledTool("waits", {
    run: (_args, signal) =>
      new Promise((resolve) => {
        signal.addEventListener("abort", () => resolve({ output: "cancelled", isError: true }), {
          once: true,
        });
      }),
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: "w", name: "waits", args: {} }, {
      id: "x",
      name: "waits",
      args: {},
    }]),
  ]);
  const history: Message[] = [];
  const log = eventLog();
  const run = runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock,
    signal: controller.signal,
    onEvent: log.onEvent,
  });
  await until(() => log.of("tool_running").length === 1, "the tool running");
  controller.abort();
  const result = await run;
  assert.equal(result.stopReason, "aborted");
  assert.equal(clock.pending, 0, "the deadline was cancelled");
  const results = (history[2] as ToolResultMessage).results;
  assert.equal(results[0]?.content, "cancelled");
  assert.equal(results[1]?.content, "(interrupted before this tool ran)");
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() gives a policy prompt that ignores the abort the same grace", async () => {
  const controller = new AbortController();
  const clock = new ManualClock();
  const tool = controlledTool("act", { run: () => Promise.resolve({ output: "ran" }) });
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: "a", name: "act", args: {} }]),
  ]);
  const history: Message[] = [];
  const run = runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock,
    signal: controller.signal,
    graceMs: 500,
    onToolCall: () => {
      controller.abort();
      return new Promise(() => {});
    },
  });
  await clock.waitForTimer();
  clock.advance(500);
  const result = await run;
  assert.equal(result.stopReason, "aborted");
  const results = (history[2] as ToolResultMessage).results;
  assert.equal(results[0]?.content, "(interrupted before this tool ran)");
  assertHistoryAcceptable(history);
});
