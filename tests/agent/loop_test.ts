import assert from "node:assert/strict";
import { systemClock } from "../../src/sys/clock.ts";
import { Type } from "@sinclair/typebox";
import { runAgentLoop } from "../../src/agent/mod.ts";
import type { AgentOptions } from "../../src/agent/types.ts";
import {
  type AssistantMessage,
  type Message,
  ModelError,
  type ToolResultMessage,
} from "../../src/model/types.ts";
import type { AnyTool } from "../../src/agent/tool.ts";
import { assertHistoryAcceptable } from "../support/history_check.ts";
import { scripted, ScriptedModelClient } from "../support/scripted_model.ts";
import { controlledTool, eventLog, memoryReadTool, user } from "./_helpers.ts";

const README = "# moat\nA coding agent whose tools touch only what you granted.\n";

function resultsOf(message: Message | undefined): ToolResultMessage["results"] {
  assert.equal(message?.role, "toolResult");
  return (message as ToolResultMessage).results;
}

function baseOptions(model: ScriptedModelClient, extra: Partial<AgentOptions> = {}): AgentOptions {
  return {
    model,
    tools: [memoryReadTool({ "README.md": README })],
    system: "You are a test.",
    clock: systemClock,
    ...extra,
  };
}

Deno.test("runAgentLoop() reads the README: 4 messages in history and 2 model calls", async () => {
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: "call_1", name: "read", args: { path: "README.md" } }]),
    scripted.text("moat is a coding agent."),
  ]);
  const history: Message[] = [];
  const log = eventLog();
  const result = await runAgentLoop(
    { history, prompt: user("What is in the README?") },
    baseOptions(model, { onEvent: log.onEvent }),
  );

  assert.equal(result.stopReason, "completed");
  assert.equal(result.turns, 2);
  assert.equal(result.truncated, undefined);
  assert.equal(result.usage.outputTokens, 20);
  assert.equal(model.requests.length, 2);
  assert.deepEqual(history.map((m) => m.role), ["user", "assistant", "toolResult", "assistant"]);
  assert.deepEqual(resultsOf(history[2]), [
    { toolCallId: "call_1", toolName: "read", content: README, isError: false },
  ]);
  // The second request carried the tool result; the first only the prompt.
  assert.equal(model.requests[0]?.messages.length, 1);
  assert.equal(model.requests[1]?.messages.length, 3);
  assert.equal(model.requests[0]?.system, "You are a test.");
  assert.deepEqual(model.requests[0]?.tools.map((t) => t.name), ["read"]);
  // message_saved mirrors history exactly, in order.
  assert.deepEqual(log.of("message_saved").map((e) => e.message), history);
  assert.deepEqual(log.of("turn_start").map((e) => e.turn), [1, 2]);
  assert.equal(log.of("text_delta").map((e) => e.delta).join(""), "moat is a coding agent.");
  assert.deepEqual(log.of("agent_end").map((e) => e.result), [result]);
  assertHistoryAcceptable(history);
});

const boom = controlledTool("boom", {
  run: () => Promise.reject(new Error("kaboom")),
});

const pipelineFailures: Array<{
  name: string;
  call: { name: string; args: unknown; invalidJson?: string };
  options?: Partial<AgentOptions>;
  expected: RegExp;
}> = [
  {
    name: "bad arguments",
    call: { name: "read", args: { path: 123 } },
    expected:
      /^Error: invalid arguments for tool "read": \/path: Expected string\. Fix the arguments and retry\.$/,
  },
  {
    name: "an unknown tool",
    call: { name: "grep", args: { pattern: "x" } },
    expected: /^Error: unknown tool "grep"\. Available tools: read, boom\.$/,
  },
  {
    name: "invalid JSON arguments",
    call: {
      name: "read",
      args: '{"path": "READ',
      invalidJson: "Unterminated string in JSON at position 14",
    },
    expected:
      /^Error: tool "read" arguments are not valid JSON: "\{\\"path\\": \\"READ" \(Unterminated string in JSON at position 14\)\. Send the arguments as one complete JSON object\.$/,
  },
  {
    name: "arguments that are an array",
    call: { name: "read", args: ["README.md"] },
    expected: /^Error: the arguments of tool "read" must be a JSON object, got an array\./,
  },
  {
    name: "a throwing tool",
    call: { name: "boom", args: {} },
    expected: /^Error: tool boom threw: kaboom$/,
  },
  {
    name: "a throwing afterToolCall",
    call: { name: "read", args: { path: "README.md" } },
    options: {
      afterToolCall: () => {
        throw new Error("hook broke");
      },
    },
    expected: /^Error: the afterToolCall hook failed for tool "read": hook broke$/,
  },
  {
    name: "a blocked call",
    call: { name: "read", args: { path: "/etc/shadow" } },
    options: {
      onToolCall: () =>
        Promise.resolve({
          block: true,
          source: "permissions",
          reason: "read access to '/etc/shadow' is not granted",
        }),
    },
    expected: /^Tool "read" blocked by permissions: read access to '\/etc\/shadow' is not granted$/,
  },
  {
    name: "a policy hook that throws",
    call: { name: "read", args: { path: "README.md" } },
    options: {
      onToolCall: () => Promise.reject(new Error("prompter closed")),
    },
    expected:
      /^Error: the policy check for tool "read" failed, so the call was not executed: prompter closed$/,
  },
];

for (const c of pipelineFailures) {
  Deno.test(`runAgentLoop() turns ${c.name} into one error result and asks the model again`, async () => {
    const model = new ScriptedModelClient([
      scripted.toolCalls([{ id: "call_x", ...c.call }]),
      scripted.text("Understood."),
    ]);
    const history: Message[] = [];
    const log = eventLog();
    const tools: AnyTool[] = [memoryReadTool({ "README.md": README }), boom];
    const result = await runAgentLoop(
      { history, prompt: user("go") },
      baseOptions(model, { tools, onEvent: log.onEvent, ...c.options }),
    );
    assert.equal(result.stopReason, "completed");
    assert.equal(model.requests.length, 2);
    assert.equal(history.length, 4);
    const results = resultsOf(history[2]);
    assert.equal(results.length, 1);
    assert.equal(results[0]?.isError, true);
    assert.match(String(results[0]?.content), c.expected);
    // The model saw exactly that result.
    assert.deepEqual(resultsOf(model.requests[1]?.messages[2]), results);
    assert.equal(log.of("tool_end").length, 1);
    assertHistoryAcceptable(history);
  });
}

Deno.test("runAgentLoop() reports a blocked call on tool_end and never executes it", async () => {
  let executed = 0;
  const tool = controlledTool("act", {
    run: () => {
      executed++;
      return Promise.resolve({ output: "done" });
    },
  });
  const seen: unknown[] = [];
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: "c1", name: "act", args: { id: "x" } }]),
    scripted.text("ok"),
  ]);
  const log = eventLog();
  await runAgentLoop({ history: [], prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock: systemClock,
    onEvent: log.onEvent,
    onToolCall: (call) => {
      seen.push({ id: call.toolCallId, name: call.name, args: call.args, tool: call.tool.name });
      assert.ok(call.signal instanceof AbortSignal);
      return { block: true, source: "user", reason: "denied at the prompt" };
    },
  });
  assert.equal(executed, 0);
  assert.deepEqual(seen, [{ id: "c1", name: "act", args: { id: "x" }, tool: "act" }]);
  const end = log.of("tool_end")[0];
  assert.deepEqual(end?.blocked, { source: "user", reason: "denied at the prompt" });
  assert.equal(log.of("tool_running").length, 0);
});

Deno.test("runAgentLoop() quotes at most 5 validation errors joined by '; '", async () => {
  const Params = Type.Object({
    a: Type.String(),
    b: Type.String(),
    c: Type.String(),
    d: Type.String(),
    e: Type.String(),
    f: Type.String(),
    g: Type.String(),
  });
  const tool: AnyTool = {
    name: "many",
    description: "d",
    parameters: Params,
    kind: "read",
    execute: () => Promise.resolve({ output: "never" }),
  };
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ name: "many", args: {} }]),
    scripted.text("ok"),
  ]);
  const history: Message[] = [];
  await runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock: systemClock,
  });
  const text = String(resultsOf(history[2])[0]?.content);
  const problems = text.replace(/^Error: invalid arguments for tool "many": /, "")
    .replace(/\. Fix the arguments and retry\.$/, "").split("; ");
  assert.equal(problems.length, 5);
  assert.match(problems[0] ?? "", /^\/a: /);
});

Deno.test("runAgentLoop() repairs arguments with prepareArguments before validation", async () => {
  const Params = Type.Object({ paths: Type.Array(Type.String()) });
  let got: unknown;
  const tool: AnyTool = {
    name: "multi",
    description: "d",
    parameters: Params,
    kind: "read",
    prepareArguments(raw) {
      const args = raw as { paths?: unknown };
      // Models sometimes send an array as a JSON string.
      return typeof args.paths === "string" ? { ...args, paths: JSON.parse(args.paths) } : raw;
    },
    execute: (args) => {
      got = args;
      return Promise.resolve({ output: "fine" });
    },
  };
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ name: "multi", args: { paths: '["a","b"]' } }]),
    scripted.text("ok"),
  ]);
  const history: Message[] = [];
  await runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock: systemClock,
  });
  assert.deepEqual(got, { paths: ["a", "b"] });
  assert.equal(resultsOf(history[2])[0]?.isError, false);
});

Deno.test("runAgentLoop() turns a throwing prepareArguments into an error result", async () => {
  const tool: AnyTool = {
    ...memoryReadTool({}),
    prepareArguments() {
      throw new Error("cannot repair");
    },
  };
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ name: "read", args: { path: "x" } }]),
    scripted.text("ok"),
  ]);
  const history: Message[] = [];
  await runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock: systemClock,
  });
  assert.equal(
    resultsOf(history[2])[0]?.content,
    'Error: could not prepare the arguments of tool "read": cannot repair. Fix the arguments and retry.',
  );
});

Deno.test("runAgentLoop() refuses every call of a reply cut at the output limit and continues", async () => {
  let executed = 0;
  const tool = controlledTool("write_file", {
    run: () => {
      executed++;
      return Promise.resolve({ output: "written" });
    },
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls([
      { id: "a", name: "write_file", args: { id: "1" } },
      { id: "b", name: "write_file", args: { id: "2" } },
    ], { stopReason: "maxTokens" }),
    scripted.text("I will split it."),
  ]);
  const history: Message[] = [];
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock: systemClock,
  });
  assert.equal(executed, 0);
  assert.equal(result.stopReason, "completed");
  assert.equal(model.requests.length, 2);
  const results = resultsOf(history[2]);
  assert.deepEqual(results.map((r) => [r.toolCallId, r.isError]), [["a", true], ["b", true]]);
  for (const r of results) {
    assert.match(String(r.content), /output token limit.*truncated/);
    assert.deepEqual(r.details, { notExecuted: "truncated_arguments" });
  }
  assert.equal((history[3] as AssistantMessage).blocks[0]?.type, "text");
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() with maxIterations 1 runs the first turn's calls, then asks for the report", async () => {
  let executed = 0;
  const tool = controlledTool("act", {
    concurrencySafe: true,
    run: () => {
      executed++;
      return Promise.resolve({ output: "x" });
    },
  });
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: "a", name: "act", args: {} }, { id: "b", name: "act", args: {} }]),
  ]);
  const history: Message[] = [];
  const log = eventLog();
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [tool],
    system: "",
    clock: systemClock,
    maxIterations: 1,
    onEvent: log.onEvent,
  });
  assert.deepEqual(log.of("tool_end").map((e) => e.toolCallId), ["a", "b"]);
  assert.equal(log.of("tool_running").length, 2);
  assert.equal(result.stopReason, "maxIterations");
  assert.equal(result.limit, "max_turns");
  // The final request (for the model's report) failed: the script had nothing left.
  assert.equal(result.finalAnswer, false);
  assert.equal(result.turns, 1);
  assert.equal(executed, 2);
  assert.equal(model.requests.length, 2);
  assert.equal(model.requests[1]?.tools.length, 0, "the final request has no tools");
  assert.equal(history.length, 3, "a failed final request leaves nothing in history");
  assert.deepEqual(
    resultsOf(history[2]).map((r) => [r.toolCallId, r.isError, r.content]),
    [["a", false, "x"], ["b", false, "x"]],
  );
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() returns aborted when aborted while streaming, without the partial reply", async () => {
  const controller = new AbortController();
  const model = new ScriptedModelClient([scripted.hang(["Let me ", "think"])]);
  const history: Message[] = [];
  const log = eventLog();
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    ...baseOptions(model),
    signal: controller.signal,
    onEvent: (e) => {
      log.onEvent(e);
      if (e.type === "text_delta" && e.delta === "think") controller.abort();
    },
  });
  assert.equal(result.stopReason, "aborted");
  assert.equal(result.turns, 0);
  assert.deepEqual(history, [user("go")]);
  assert.equal(log.of("text_delta").length, 2);
  assert.equal(log.of("message_end").length, 0);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() lets a mid-stream failure reach the caller with no partial message", async () => {
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: "r1", name: "read", args: { path: "README.md" } }]),
    scripted.fail(new ModelError("incomplete_stream", "Stream ended early"), ["Half a "]),
  ]);
  const history: Message[] = [];
  const log = eventLog();
  await assert.rejects(
    runAgentLoop(
      { history, prompt: user("go") },
      baseOptions(model, { onEvent: log.onEvent }),
    ),
    (e) => e instanceof ModelError && e.kind === "incomplete_stream",
  );
  assert.deepEqual(history.map((m) => m.role), ["user", "assistant", "toolResult"]);
  assert.equal(log.of("agent_end").length, 0);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() rejects two tools with the same name before calling the model", async () => {
  const model = new ScriptedModelClient([scripted.text("never")]);
  const history: Message[] = [];
  await assert.rejects(
    runAgentLoop({ history, prompt: user("go") }, {
      model,
      tools: [memoryReadTool({}), memoryReadTool({})],
      system: "",
      clock: systemClock,
    }),
    /Two tools are named "read"/,
  );
  assert.equal(model.requests.length, 0);
  assert.deepEqual(history, []);
});

Deno.test("runAgentLoop() marks a reply that ended on the output limit as truncated", async () => {
  const model = new ScriptedModelClient([
    scripted.text("Part of an ans", { stopReason: "maxTokens" }),
  ]);
  const result = await runAgentLoop({ history: [], prompt: user("go") }, baseOptions(model));
  assert.equal(result.stopReason, "completed");
  assert.equal(result.truncated, true);
});

Deno.test("runAgentLoop() continues the same run with queued user messages when the model stops", async () => {
  const queue = [[user("also check the tests")], []];
  const model = new ScriptedModelClient([scripted.text("first answer"), scripted.text("second")]);
  const history: Message[] = [];
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    ...baseOptions(model),
    getQueuedMessages: () => queue.shift() ?? [],
  });
  assert.equal(result.stopReason, "completed");
  assert.equal(result.turns, 2);
  assert.deepEqual(history.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
  assert.deepEqual(history[2], user("also check the tests"));
  assert.equal(model.requests[1]?.messages.length, 3);
});

Deno.test("runAgentLoop() ends after the batch when afterToolCall asks to terminate", async () => {
  const model = new ScriptedModelClient([
    scripted.toolCalls([
      { id: "a", name: "read", args: { path: "README.md" } },
      { id: "b", name: "read", args: { path: "missing" } },
    ]),
    scripted.text("never sent"),
  ]);
  const history: Message[] = [];
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    ...baseOptions(model),
    afterToolCall: ({ call, result }) =>
      call.toolCallId === "a"
        ? { terminate: true, content: `[checked] ${String(result.content)}` }
        : undefined,
  });
  assert.equal(result.stopReason, "completed");
  assert.equal(result.terminated, true);
  assert.equal(model.requests.length, 1);
  const results = resultsOf(history[2]);
  assert.equal(results[0]?.content, `[checked] ${README}`);
  assert.equal(results[1]?.isError, true);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() stores the error flag an afterToolCall hook sets", async () => {
  const model = new ScriptedModelClient([
    scripted.toolCalls([
      { id: "a", name: "read", args: { path: "README.md" } },
      { id: "b", name: "read", args: { path: "missing" } },
    ]),
    scripted.text("ok"),
  ]);
  const history: Message[] = [];
  await runAgentLoop({ history, prompt: user("go") }, {
    ...baseOptions(model),
    // Flip both flags: a success becomes an error and an error a success.
    afterToolCall: ({ result }) => ({ isError: !result.isError }),
  });
  assert.deepEqual(resultsOf(history[2]).map((r) => [r.toolCallId, r.isError, r.content]), [
    ["a", true, README],
    ["b", false, 'File "missing" not found.'],
  ]);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() survives an onEvent sink that throws", async () => {
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ name: "read", args: { path: "README.md" } }]),
    scripted.text("done"),
  ]);
  const history: Message[] = [];
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    ...baseOptions(model),
    onEvent: () => {
      throw new Error("broken pipe");
    },
  });
  assert.equal(result.stopReason, "completed");
  assert.equal(history.length, 4);
});

Deno.test("runAgentLoop() returns aborted without a request when the signal is already aborted", async () => {
  const model = new ScriptedModelClient([scripted.text("never")]);
  const history: Message[] = [];
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    ...baseOptions(model),
    signal: AbortSignal.abort(),
  });
  assert.equal(result.stopReason, "aborted");
  assert.equal(model.requests.length, 0);
  assert.deepEqual(history, [user("go")]);
});

Deno.test("runAgentLoop() passes output limit and temperature to the model", async () => {
  const model = new ScriptedModelClient([scripted.text("ok")]);
  await runAgentLoop({ history: [], prompt: user("go") }, {
    ...baseOptions(model),
    maxOutputTokens: 1234,
    temperature: 0.2,
  });
  assert.equal(model.requests[0]?.maxOutputTokens, 1234);
  assert.equal(model.requests[0]?.temperature, 0.2);
});

Deno.test("runAgentLoop() quotes only a short prefix of long invalid JSON arguments", async () => {
  const raw = `{"path": "${"a".repeat(500)}`;
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ name: "read", args: raw, invalidJson: "Unterminated string" }]),
    scripted.text("ok"),
  ]);
  const history: Message[] = [];
  await runAgentLoop({ history, prompt: user("go") }, baseOptions(model));
  const text = String(resultsOf(history[2])[0]?.content);
  assert.ok(text.includes(JSON.stringify(`${raw.slice(0, 120)}…`)), text);
  assert.ok(text.length < 300, `quoted ${text.length} characters`);
});

Deno.test("runAgentLoop() turns thrown values that cannot be printed into error results", async () => {
  // `String(Object.create(null))` throws: formatting the error must not throw in turn.
  const odd = controlledTool("odd", { run: () => Promise.reject(Object.create(null)) });
  const oddPrepare: AnyTool = {
    ...memoryReadTool({}),
    prepareArguments() {
      throw Object.create(null);
    },
  };
  const model = new ScriptedModelClient([
    scripted.toolCalls([
      { id: "a", name: "odd", args: {} },
      { id: "b", name: "read", args: { path: "x" } },
    ]),
    scripted.text("ok"),
  ]);
  const history: Message[] = [];
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [odd, oddPrepare],
    system: "",
    clock: systemClock,
  });
  assert.equal(result.stopReason, "completed");
  assert.deepEqual(resultsOf(history[2]).map((r) => [r.isError, r.content]), [
    [true, "Error: tool odd threw: a value that cannot be printed"],
    [
      true,
      'Error: could not prepare the arguments of tool "read": a value that cannot be printed. ' +
      "Fix the arguments and retry.",
    ],
  ]);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() leaves queued messages queued once the turn limit is reached", async () => {
  let consulted = 0;
  const model = new ScriptedModelClient([scripted.text("first answer"), scripted.text("never")]);
  const history: Message[] = [];
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    ...baseOptions(model),
    maxIterations: 1,
    getQueuedMessages: () => {
      consulted++;
      return [user("typed while busy")];
    },
  });
  assert.equal(result.stopReason, "completed");
  assert.equal(result.turns, 1);
  assert.equal(model.requests.length, 1);
  assert.equal(consulted, 0);
  assert.deepEqual(history.map((m) => m.role), ["user", "assistant"]);
});
