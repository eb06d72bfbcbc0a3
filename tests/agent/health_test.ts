import assert from "node:assert/strict";
import { systemClock } from "../../src/sys/clock.ts";
import { runAgentLoop } from "../../src/agent/mod.ts";
import { scripted, ScriptedModelClient, type ScriptedStep } from "../support/scripted_model.ts";
import { controlledTool, eventLog, ManualClock, memoryReadTool, user } from "./_helpers.ts";

function readTurns(count: number, args: (i: number) => unknown): ScriptedStep[] {
  return Array.from(
    { length: count },
    (_, i) => scripted.toolCalls([{ name: "read", args: args(i) }]),
  );
}

Deno.test("runAgentLoop() reports repeated_calls after 5 identical tool-call turns", async () => {
  const model = new ScriptedModelClient([
    // Key order differs between turns; the arguments are still the same.
    ...readTurns(5, (i) => (i % 2 === 0 ? { path: "a.txt", n: 1 } : { n: 1, path: "a.txt" })),
    scripted.text("done"),
  ]);
  const log = eventLog();
  const result = await runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [memoryReadTool({ "a.txt": "A" })],
    system: "",
    clock: systemClock,
    onEvent: log.onEvent,
  });
  assert.equal(result.stopReason, "completed", "health signals never stop the run");
  const health = log.of("health");
  assert.equal(health.length, 1);
  assert.equal(health[0]?.signal, "repeated_calls");
  assert.equal(health[0]?.count, 5);
  assert.match(health[0]?.message ?? "", /read/);
  // Reported right after the fifth reply, before the sixth request.
  const events = log.events;
  const fifthReply = events.indexOf(log.of("message_end")[4]!);
  const sixthTurn = events.indexOf(log.of("turn_start")[5]!);
  const healthAt = events.indexOf(health[0]!);
  assert.ok(fifthReply < healthAt && healthAt < sixthTurn);
});

Deno.test("runAgentLoop() does not report repeated_calls when arguments change", async () => {
  const model = new ScriptedModelClient([
    ...readTurns(4, () => ({ path: "a.txt" })),
    ...readTurns(1, () => ({ path: "b.txt" })),
    scripted.text("done"),
  ]);
  const log = eventLog();
  await runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [memoryReadTool({ "a.txt": "A" })],
    system: "",
    clock: systemClock,
    onEvent: log.onEvent,
    health: { repeatThreshold: 5 },
  });
  assert.equal(log.of("health").length, 0);
});

Deno.test("runAgentLoop() honours a custom repeat threshold", async () => {
  const model = new ScriptedModelClient([
    ...readTurns(2, () => ({ path: "a.txt" })),
    scripted.text("done"),
  ]);
  const log = eventLog();
  await runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [memoryReadTool({ "a.txt": "A" })],
    system: "",
    clock: systemClock,
    onEvent: log.onEvent,
    health: { repeatThreshold: 2 },
  });
  assert.deepEqual(log.of("health").map((e) => [e.signal, e.count]), [["repeated_calls", 2]]);
});

function failingEdit(outcomes: boolean[]) {
  return controlledTool("edit", {
    kind: "write",
    run: () => {
      const ok = outcomes.shift() ?? false;
      return Promise.resolve(ok ? { output: "edited" } : { output: "no match", isError: true });
    },
  });
}

function editTurns(count: number, clock?: ManualClock, stepMs = 0): ScriptedStep[] {
  return Array.from({ length: count }, (_, i) => () => {
    clock?.advance(stepMs);
    return scripted.toolCalls([{ name: "edit", args: { id: String(i) } }]);
  });
}

Deno.test("runAgentLoop() reports failing_edits after 3 failed edits in a row", async () => {
  const model = new ScriptedModelClient([...editTurns(3), scripted.text("giving up")]);
  const log = eventLog();
  await runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [failingEdit([false, false, false])],
    system: "",
    clock: systemClock,
    onEvent: log.onEvent,
  });
  assert.deepEqual(log.of("health").map((e) => [e.signal, e.count]), [["failing_edits", 3]]);
});

Deno.test("runAgentLoop() resets failing_edits on a successful edit", async () => {
  const model = new ScriptedModelClient([...editTurns(4), scripted.text("done")]);
  const log = eventLog();
  await runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [failingEdit([false, false, true, false])],
    system: "",
    clock: systemClock,
    onEvent: log.onEvent,
  });
  assert.equal(log.of("health").length, 0);
});

Deno.test("runAgentLoop() ignores edit failures older than the window", async () => {
  const clock = new ManualClock();
  const model = new ScriptedModelClient([...editTurns(3, clock, 3 * 60_000), scripted.text("ok")]);
  const log = eventLog();
  await runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [failingEdit([false, false, false])],
    system: "",
    clock,
    onEvent: log.onEvent,
  });
  assert.equal(log.of("health").length, 0);
});

Deno.test("runAgentLoop() honours custom failing_edits thresholds and window", async () => {
  const clock = new ManualClock();
  const run = async (stepMs: number) => {
    const model = new ScriptedModelClient([...editTurns(2, clock, stepMs), scripted.text("ok")]);
    const log = eventLog();
    await runAgentLoop({ history: [], prompt: user("go") }, {
      model,
      tools: [failingEdit([false, false])],
      system: "",
      clock,
      onEvent: log.onEvent,
      health: { failingEdits: 2, failingEditsWindowMs: 1_000 },
    });
    return log.of("health").map((e) => [e.signal, e.count]);
  };
  assert.deepEqual(await run(600), [["failing_edits", 2]]);
  assert.deepEqual(await run(1_500), []);
});
