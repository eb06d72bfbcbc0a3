import assert from "node:assert/strict";
import { systemClock } from "../../src/sys/clock.ts";
import { Type } from "@sinclair/typebox";
import { fillMissingToolResults, persistableResult, runAgentLoop } from "../../src/agent/mod.ts";
import type { Message, ToolResult, ToolResultMessage } from "../../src/model/types.ts";
import type { AnyTool } from "../../src/agent/tool.ts";
import { assertHistoryAcceptable } from "../support/history_check.ts";
import { scripted, type ScriptedCall, ScriptedModelClient } from "../support/scripted_model.ts";
import { controlledTool, eventLog, flush, gates, ManualClock, until, user } from "./_helpers.ts";

function lastResults(history: Message[]): ToolResult[] {
  const message = history.findLast((m) => m.role === "toolResult") as ToolResultMessage;
  return message.results;
}

function jobs(ids: string[], name = "job"): ScriptedCall[] {
  return ids.map((id) => ({ id: `c${id}`, name, args: { id } }));
}

Deno.test("executeToolBatch() runs 7 safe calls in a window of 5: 6 and 7 start before a slow 1 ends", async () => {
  const gate = gates();
  const clock = new ManualClock();
  const job = controlledTool("job", {
    concurrencySafe: true,
    run: async (args) => {
      if (args.id !== "7") await gate.wait(args.id ?? "");
      return { output: `done ${args.id}` };
    },
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls(jobs(["1", "2", "3", "4", "5", "6", "7"])),
    scripted.text("all done"),
  ]);
  const history: Message[] = [];
  const log = eventLog();
  const run = runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [job],
    system: "",
    clock,
    onEvent: log.onEvent,
  });

  await until(() => log.of("tool_running").length === 5, "the first 5 calls running");
  await flush(10);
  assert.equal(log.of("tool_running").length, 5, "the window holds 5");
  clock.advance(40);
  gate.open("2");
  await until(() => log.of("tool_running").length === 6, "call 6 running");
  gate.open("3");
  await until(() => log.of("tool_settled").length === 3, "calls 2, 3 and 7 settled");
  clock.advance(60);
  gate.open("6");
  gate.open("4");
  gate.open("5");
  await until(() => log.of("tool_settled").length === 6, "all but call 1 settled");
  gate.open("1");
  const result = await run;
  assert.equal(result.stopReason, "completed");

  const trace = log.trace();
  const at = (entry: string) => trace.indexOf(entry);
  assert.ok(at("tool_running:c6") < at("tool_settled:c1"), "call 6 starts before call 1 ends");
  assert.ok(at("tool_running:c7") < at("tool_settled:c1"), "call 7 starts before call 1 ends");
  // Nothing beyond the window started before a slot was freed.
  assert.ok(at("tool_running:c6") > at("tool_settled:c2"));
  assert.ok(at("tool_running:c7") > at("tool_settled:c3"));
  assert.deepEqual(
    log.of("tool_settled").map((e) => e.toolCallId),
    ["c2", "c3", "c7", "c6", "c4", "c5", "c1"],
  );
  assert.deepEqual(
    log.of("tool_end").map((e) => e.toolCallId),
    ["c1", "c2", "c3", "c4", "c5", "c6", "c7"],
  );
  // tool_end of call 1 gates the rest: none came before call 1 settled.
  assert.ok(at("tool_end:c1") > at("tool_settled:c1"));
  assert.deepEqual(
    lastResults(history).map((r) => r.content),
    ["done 1", "done 2", "done 3", "done 4", "done 5", "done 6", "done 7"],
  );
  // Durations are measured from tool_running: call 6 queued for 40 ms, then ran 60 ms.
  const duration = (id: string) =>
    log.of("tool_settled").find((e) => e.toolCallId === id)?.durationMs;
  assert.equal(duration("c1"), 100);
  assert.equal(duration("c6"), 60);
  // No abort, no timer.
  assert.equal(clock.created, 0);
  assertHistoryAcceptable(history);
});

Deno.test("executeToolBatch() never runs more than the window and fills a freed slot with the next call", async () => {
  const gate = gates();
  let active = 0;
  let maxActive = 0;
  const job = controlledTool("job", {
    concurrencySafe: true,
    run: async (args) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await gate.wait(args.id ?? "");
      active--;
      return { output: `done ${args.id}` };
    },
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls(jobs(["1", "2", "3", "4", "5", "6", "7"])),
    scripted.text("ok"),
  ]);
  const log = eventLog();
  const run = runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [job],
    system: "",
    clock: systemClock,
    concurrency: 3,
    onEvent: log.onEvent,
  });
  await until(() => log.of("tool_running").length === 3, "3 calls running");
  await flush(10);
  assert.deepEqual(log.of("tool_running").map((e) => e.toolCallId), ["c1", "c2", "c3"]);
  assert.equal(log.of("tool_start").length, 7, "every call is registered up front");
  gate.open("2");
  await until(() => log.of("tool_running").length === 4, "a 4th call running");
  assert.equal(log.of("tool_running")[3]?.toolCallId, "c4");
  for (const id of ["1", "3", "4", "5", "6", "7"]) gate.open(id);
  await run;
  assert.equal(maxActive, 3);
});

Deno.test("executeToolBatch() treats a non-concurrency-safe call as a barrier", async () => {
  const gate = gates();
  const job = controlledTool("job", {
    concurrencySafe: true,
    run: async (args) => {
      await gate.wait(args.id ?? "");
      return { output: `job ${args.id}` };
    },
  });
  const serial = controlledTool("serial", {
    run: async (args) => {
      await gate.wait(args.id ?? "");
      return { output: `serial ${args.id}` };
    },
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls([
      ...jobs(["a", "b"]),
      { id: "cs", name: "serial", args: { id: "s" } },
      ...jobs(["d", "e"]),
    ]),
    scripted.text("ok"),
  ]);
  const history: Message[] = [];
  const log = eventLog();
  const run = runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [job, serial],
    system: "",
    clock: systemClock,
    onEvent: log.onEvent,
  });
  await until(() => log.of("tool_running").length === 2, "a and b running together");
  gate.open("s");
  gate.open("d");
  gate.open("e");
  await flush(10);
  assert.deepEqual(log.of("tool_running").map((e) => e.toolCallId), ["ca", "cb"]);
  gate.open("b");
  await until(() => log.of("tool_settled").length === 1, "b settled");
  await flush(10);
  assert.equal(log.of("tool_running").length, 2, "the serial call waits for a too");
  gate.open("a");
  await run;

  const trace = log.trace();
  const at = (entry: string) => trace.indexOf(entry);
  assert.ok(at("tool_running:cs") > at("tool_settled:ca"));
  assert.ok(at("tool_running:cs") > at("tool_settled:cb"));
  assert.ok(at("tool_running:cd") > at("tool_settled:cs"));
  assert.ok(at("tool_running:ce") > at("tool_settled:cs"));
  assert.deepEqual(
    lastResults(history).map((r) => r.content),
    ["job a", "job b", "serial s", "job d", "job e"],
  );
  assertHistoryAcceptable(history);
});

Deno.test("executeToolBatch() serialises write calls on the same real path, not on different ones", async () => {
  const gate = gates();
  const edit = controlledTool("edit", {
    concurrencySafe: true,
    kind: "write",
    withLocations: true,
    run: async (args) => {
      await gate.wait(args.id ?? "");
      return { output: `edited ${args.path}` };
    },
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls([
      { id: "e1", name: "edit", args: { id: "1", path: "/w/a.ts" } },
      { id: "e2", name: "edit", args: { id: "2", path: "/w/b.ts" } },
      { id: "e3", name: "edit", args: { id: "3", path: "/w/a.ts" } },
    ]),
    scripted.text("ok"),
  ]);
  const log = eventLog();
  const run = runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [edit],
    system: "",
    clock: systemClock,
    onEvent: log.onEvent,
  });
  await until(() => log.of("tool_running").length === 2, "two edits running");
  gate.open("3");
  await flush(10);
  assert.deepEqual(log.of("tool_running").map((e) => e.toolCallId), ["e1", "e2"]);
  gate.open("1");
  await until(() => log.of("tool_running").length === 3, "the third edit running");
  gate.open("2");
  await run;
  const trace = log.trace();
  assert.ok(trace.indexOf("tool_running:e3") > trace.indexOf("tool_settled:e1"));
});

Deno.test("executeToolBatch() prepares and approves a chunk in call order before running it", async () => {
  const order: string[] = [];
  const job = controlledTool("job", {
    concurrencySafe: true,
    run: (args) => {
      order.push(`run ${args.id}`);
      return Promise.resolve({ output: "ok" });
    },
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls(jobs(["1", "2", "3"])),
    scripted.text("ok"),
  ]);
  await runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [job],
    system: "",
    clock: systemClock,
    onToolCall: async (call) => {
      order.push(`check ${(call.args as { id: string }).id}`);
      await Promise.resolve();
      return call.toolCallId === "c2" ? { block: true, source: "test", reason: "no" } : undefined;
    },
  });
  assert.deepEqual(order, ["check 1", "check 2", "check 3", "run 1", "run 3"]);
});

Deno.test("executeToolBatch() delivers updates before the result and drops updates after it", async () => {
  let late: (() => void) | undefined;
  const Params = Type.Object({});
  const tool: AnyTool = {
    name: "progress",
    description: "d",
    parameters: Params,
    kind: "execute",
    execute: (_args, _signal, ctx) => {
      ctx.onUpdate({ text: "50%" });
      ctx.onUpdate({ text: "100%" });
      late = () => ctx.onUpdate({ text: "too late" });
      return Promise.resolve({ output: "finished" });
    },
  };
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: "p", name: "progress", args: {} }]),
    scripted.text("ok"),
  ]);
  const log = eventLog();
  await runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock: systemClock,
    onEvent: log.onEvent,
  });
  late?.();
  assert.deepEqual(log.of("tool_update").map((e) => e.update.text), ["50%", "100%"]);
  const trace = log.trace();
  assert.ok(trace.lastIndexOf("tool_update:p") < trace.indexOf("tool_settled:p"));
});

Deno.test("executeToolBatch() stamps each update with the time since the call started running", async () => {
  const clock = new ManualClock();
  const gate = gates();
  let report!: (text: string) => void;
  const Params = Type.Object({});
  const tool: AnyTool = {
    name: "slow",
    description: "d",
    parameters: Params,
    kind: "execute",
    execute: async (_args, _signal, ctx) => {
      report = (text) => ctx.onUpdate({ text });
      await gate.wait("end");
      return { output: "finished" };
    },
  };
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: "s", name: "slow", args: {} }]),
    scripted.text("ok"),
  ]);
  const log = eventLog();
  const run = runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock,
    onEvent: log.onEvent,
  });
  await until(() => report !== undefined, "the call running");
  report("start");
  clock.advance(1500);
  report("later");
  gate.open("end");
  await run;
  report("after the result");
  assert.deepEqual(
    log.of("tool_update").map((e) => [e.update.text, e.elapsedMs]),
    [["start", 0], ["later", 1500]],
  );
  const trace = log.trace();
  assert.ok(trace.indexOf("tool_running:s") < trace.indexOf("tool_update:s"));
  assert.ok(trace.lastIndexOf("tool_update:s") < trace.indexOf("tool_settled:s"));
});

Deno.test("executeToolBatch() caps results of tools without their own cap and strips UI-only fields", async () => {
  const big = "x".repeat(300);
  const uncapped = controlledTool("uncapped", {
    run: () => Promise.resolve({ output: big, display: "a pretty diff", details: { exitCode: 0 } }),
  });
  const ownCap = controlledTool("owncap", {
    maxResultChars: 1_000,
    run: () => Promise.resolve({ output: big }),
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls([
      { id: "u", name: "uncapped", args: {} },
      { id: "o", name: "owncap", args: {} },
    ]),
    scripted.text("ok"),
  ]);
  const history: Message[] = [];
  const log = eventLog();
  await runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [uncapped, ownCap],
    system: "",
    clock: systemClock,
    maxResultChars: 100,
    onEvent: log.onEvent,
  });
  const [u, o] = lastResults(history);
  assert.match(String(u?.content), /\[… 200 characters omitted …\]/);
  assert.ok(String(u?.content).length < 150);
  assert.deepEqual(u?.details, { exitCode: 0 });
  assert.equal(o?.content, big);
  assert.equal(log.of("tool_end")[0]?.display, "a pretty diff");
  assert.deepEqual(Object.keys(u ?? {}).sort(), [
    "content",
    "details",
    "isError",
    "toolCallId",
    "toolName",
  ]);
  assertHistoryAcceptable(history);
});

Deno.test("executeToolBatch() uses content over output for history", async () => {
  const tool = controlledTool("img", {
    run: () =>
      Promise.resolve({
        output: "fallback text",
        content: [{ type: "image", data: "aGk=", mimeType: "image/png" }],
      }),
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: "i", name: "img", args: {} }]),
    scripted.text("ok"),
  ]);
  const history: Message[] = [];
  await runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock: systemClock,
  });
  assert.deepEqual(lastResults(history)[0]?.content, [
    { type: "image", data: "aGk=", mimeType: "image/png" },
  ]);
});

Deno.test("persistableResult() keeps only what history stores", () => {
  const rich = {
    toolCallId: "a",
    toolName: "edit",
    content: "ok",
    isError: false,
    details: { lines: 3 },
    display: "diff",
    durationMs: 12,
  } as ToolResult;
  assert.deepEqual(persistableResult(rich), {
    toolCallId: "a",
    toolName: "edit",
    content: "ok",
    isError: false,
    details: { lines: 3 },
  });
});

Deno.test("fillMissingToolResults() answers every call once, in call order", () => {
  const message = scripted.toolCalls([
    { id: "a", name: "read", args: {} },
    { id: "b", name: "bash", args: {} },
    { id: "c", name: "read", args: {} },
  ]);
  const given: ToolResult[] = [
    { toolCallId: "c", toolName: "read", content: "C", isError: false },
    { toolCallId: "zzz", toolName: "read", content: "orphan", isError: false },
    { toolCallId: "a", toolName: "read", content: "A", isError: false },
    { toolCallId: "a", toolName: "read", content: "A again", isError: false },
  ];
  assert.deepEqual(fillMissingToolResults(message, given), [
    { toolCallId: "a", toolName: "read", content: "A", isError: false },
    {
      toolCallId: "b",
      toolName: "bash",
      content: "(interrupted before this tool ran)",
      isError: true,
    },
    { toolCallId: "c", toolName: "read", content: "C", isError: false },
  ]);
});
