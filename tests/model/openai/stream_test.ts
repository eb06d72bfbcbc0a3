/** Assembling the reply stream: text, tool calls however servers split them, stop reasons, usage. */
import assert from "node:assert/strict";
import type {
  AssistantMessage,
  ModelStreamEvent,
  ToolCallBlock,
} from "../../../src/model/types.ts";
import { isTransientStreamError } from "../../../src/model/openai/stream.ts";
import { reply, startFakeOpenAI } from "../../support/fake_openai.ts";
import { client, readTool, request } from "./_helpers.ts";
import {
  GEMINI_PARALLEL_CALLS_NO_INDEX,
  LLAMACPP_OBJECT_AND_EMPTY_ARGUMENTS,
  MISTRAL_MODEL_LENGTH,
  OLLAMA_WHOLE_CALL,
  UNKNOWN_FINISH_REASON,
  VLLM_NAMED_TOOL_CHOICE,
} from "./_server_streams.ts";

function calls(message: AssistantMessage | null): ToolCallBlock[] {
  return message?.blocks.filter((b): b is ToolCallBlock => b.type === "toolCall") ?? [];
}

Deno.test("stream() assembles text and two interleaved tool calls into exact blocks with usage", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([
      { id: "call_a", name: "read", arguments: { path: "src/a.ts", limit: 10 } },
      { id: "call_b", name: "ls", arguments: { path: "." } },
    ], {
      text: "Let me look at both.",
      interleave: true,
      argChunks: 3,
      usage: { prompt_tokens: 120, completion_tokens: 30, cached_tokens: 64 },
    }),
  );
  const events: ModelStreamEvent[] = [];
  const message = await client(server).stream(request({ tools: [readTool] }), {
    onEvent: (e) => events.push(e),
  });
  assert.deepEqual(message, {
    role: "assistant",
    blocks: [
      { type: "text", text: "Let me look at both." },
      { type: "toolCall", id: "call_a", name: "read", arguments: { path: "src/a.ts", limit: 10 } },
      { type: "toolCall", id: "call_b", name: "ls", arguments: { path: "." } },
    ],
    stopReason: "toolUse",
    usage: { inputTokens: 120, outputTokens: 30, cachedTokens: 64, totalTokens: 150 },
    model: "test-model",
  });
  const toolDeltas = events.filter((e) => e.type === "toolcall_delta");
  assert.ok(toolDeltas.length >= 6, `only ${toolDeltas.length} argument deltas`);
  assert.deepEqual(toolDeltas.slice(0, 2).map((e) => e.index), [0, 1], "deltas interleave");
  assert.deepEqual(events[0], { type: "message_start" });
  assert.deepEqual(events.filter((e) => e.type === "toolcall_start"), [
    { type: "toolcall_start", index: 0, id: "call_a", name: "read" },
    { type: "toolcall_start", index: 1, id: "call_b", name: "ls" },
  ]);
  const text = events.flatMap((e) => e.type === "text_delta" ? [e.delta] : []).join("");
  assert.equal(text, "Let me look at both.");
});

Deno.test("stream() maps finish_reason length with a tool call to maxTokens and keeps the call", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([{ id: "c1", name: "write", arguments: '{"path":"a","content":"x"}' }], {
      finishReason: "length",
    }),
  );
  const message = await client(server).stream(request(), {});
  assert.equal(message?.stopReason, "maxTokens");
  assert.deepEqual(message?.blocks, [
    { type: "toolCall", id: "c1", name: "write", arguments: { path: "a", content: "x" } },
  ]);
});

Deno.test("stream() maps stop, content_filter, stop-with-calls and function_call finish reasons", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.text("done"),
    reply.text("filtered", { finishReason: "content_filter" }),
    reply.toolCalls([{ id: "c1", name: "ls", arguments: {} }], { finishReason: "stop" }),
    reply.toolCalls([{ id: "c2", name: "ls", arguments: {} }], { finishReason: "function_call" }),
  );
  const c = client(server);
  assert.equal((await c.stream(request(), {}))?.stopReason, "stop");
  const filtered = await c.stream(request(), {});
  assert.equal(filtered?.stopReason, "error");
  assert.equal(filtered?.rawStopReason, "content_filter");
  assert.equal((await c.stream(request(), {}))?.stopReason, "toolUse");
  const legacy = await c.stream(request(), {});
  assert.equal(legacy?.stopReason, "toolUse");
  assert.equal(legacy?.rawStopReason, undefined);
});

Deno.test("stream() keeps invalid JSON arguments raw and marks the call instead of throwing", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.toolCalls([{ id: "bad", name: "edit", arguments: '{"path": "a.ts", "old' }]));
  const message = await client(server).stream(request(), {});
  const call = message?.blocks[0];
  assert.equal(call?.type, "toolCall");
  if (call?.type !== "toolCall") return;
  assert.equal(call.arguments, '{"path": "a.ts", "old');
  assert.equal(typeof call.invalidJson, "string");
  assert.ok((call.invalidJson ?? "").length > 0);
});

Deno.test("stream() accepts arguments sent as an object and empty arguments as {}", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([
      { id: "o1", name: "grep", arguments: { pattern: "TODO", path: "src" }, argsAsObject: true },
      { id: "e1", name: "ls", arguments: "" },
    ]),
  );
  const message = await client(server).stream(request(), {});
  assert.deepEqual(message?.blocks, [
    { type: "toolCall", id: "o1", name: "grep", arguments: { pattern: "TODO", path: "src" } },
    { type: "toolCall", id: "e1", name: "ls", arguments: {} },
  ]);
});

Deno.test("stream() generates stable unique ids for calls sent without one", async () => {
  await using server = await startFakeOpenAI();
  const calls = [
    { id: null, name: "read", arguments: { path: "a" } },
    { id: null, name: "read", arguments: { path: "b" } },
  ];
  server.script(reply.toolCalls(calls), reply.toolCalls(calls));
  const started: string[] = [];
  const c = client(server);
  const first = await c.stream(request(), {
    onEvent: (e) => e.type === "toolcall_start" && started.push(e.id),
  });
  const ids = first?.blocks.flatMap((b) => b.type === "toolCall" ? [b.id] : []) ?? [];
  assert.equal(ids.length, 2);
  assert.notEqual(ids[0], ids[1]);
  assert.ok(ids.every((id) => id.startsWith("call_")));
  assert.deepEqual(started, ids, "events announce the same ids as the message");
  const again = await c.stream(request(), {});
  assert.deepEqual(
    again?.blocks.flatMap((b) => b.type === "toolCall" ? [b.id] : []),
    ids,
    "the same request yields the same ids",
  );
  server.script(reply.toolCalls(calls));
  const other = await c.stream(request({ messages: [{ role: "user", content: "other" }] }), {});
  const otherIds = other?.blocks.flatMap((b) => b.type === "toolCall" ? [b.id] : []) ?? [];
  assert.equal(otherIds.length, 2);
  assert.ok(!otherIds.some((id) => ids.includes(id)), "another turn gets other ids");
});

Deno.test("stream() splits calls that share index 0 but carry different ids", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.deltas([
      { tool_calls: [{ index: 0, id: "g1", type: "function", function: { name: "ls" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"path":"a"}' } }] },
      { tool_calls: [{ index: 0, id: "g2", type: "function", function: { name: "ls" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"path":"b"}' } }] },
    ], { finishReason: "tool_calls" }),
  );
  const message = await client(server).stream(request(), {});
  assert.deepEqual(message?.blocks, [
    { type: "toolCall", id: "g1", name: "ls", arguments: { path: "a" } },
    { type: "toolCall", id: "g2", name: "ls", arguments: { path: "b" } },
  ]);
});

Deno.test("stream() keeps one call when the server sends its id after the name", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.deltas([
      { tool_calls: [{ index: 0, type: "function", function: { name: "ls" } }] },
      { tool_calls: [{ index: 0, id: "late_1", function: { arguments: '{"path":' } }] },
      { tool_calls: [{ index: 0, id: "late_1", function: { arguments: '"a"}' } }] },
    ], { finishReason: "tool_calls" }),
  );
  const started: string[] = [];
  const message = await client(server).stream(request(), {
    onEvent: (e) => e.type === "toolcall_start" && started.push(e.id),
  });
  assert.equal(message?.blocks.length, 1);
  const call = message?.blocks[0];
  assert.equal(call?.type, "toolCall");
  if (call?.type !== "toolCall") return;
  assert.equal(call.name, "ls");
  assert.deepEqual(call.arguments, { path: "a" });
  assert.deepEqual(started, [call.id], "the announced id is the one in the message");
});

Deno.test("stream() assembles calls sent without an index, as Gemini does", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.deltas([
      { tool_calls: [{ id: "fc-1", type: "function", function: { name: "read" } }] },
      { tool_calls: [{ function: { arguments: '{"path":' } }] },
      { tool_calls: [{ function: { arguments: '"a"}' } }] },
      {
        tool_calls: [{
          id: "fc-2",
          type: "function",
          function: { name: "read", arguments: '{"path":"b"}' },
        }],
      },
    ], { finishReason: "stop" }),
  );
  const message = await client(server).stream(request(), {});
  assert.equal(message?.stopReason, "toolUse");
  assert.deepEqual(message?.blocks, [
    { type: "toolCall", id: "fc-1", name: "read", arguments: { path: "a" } },
    { type: "toolCall", id: "fc-2", name: "read", arguments: { path: "b" } },
  ]);
});

Deno.test("stream() splits Gemini's parallel calls sent without index and with empty ids, and the ids hold for the tool messages", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.sse(GEMINI_PARALLEL_CALLS_NO_INDEX), reply.text("Both read."));
  const c = client(server);
  const started: string[] = [];
  const message = await c.stream(request({ tools: [readTool] }), {
    onEvent: (e) => e.type === "toolcall_start" && started.push(e.id),
  });
  assert.equal(message?.stopReason, "toolUse", 'finish_reason "stop" with calls: the calls count');
  const made = calls(message);
  assert.deepEqual(made.map((b) => [b.name, b.arguments]), [
    ["read", { path: "a.ts" }],
    ["read", { path: "b.ts" }],
    ["ls", {}],
  ]);
  const ids = made.map((b) => b.id);
  assert.equal(new Set(ids).size, 3, `ids must be unique: ${ids.join(", ")}`);
  assert.ok(ids.every((id) => id !== ""));
  assert.deepEqual(started, ids, "the announced ids are the message's");
  if (message === null) return;
  // The next request sends the same ids back, in the assistant message and in its tool messages
  // (the fake answers 400 if they do not pair up), with the arguments as JSON strings.
  const answer = await c.stream(
    request({
      tools: [readTool],
      messages: [
        { role: "user", content: "read a and b" },
        message,
        {
          role: "toolResult",
          results: made.map((b) => ({
            toolCallId: b.id,
            toolName: b.name,
            content: "ok",
            isError: false,
          })),
        },
      ],
    }),
    {},
  );
  assert.deepEqual(answer?.blocks, [{ type: "text", text: "Both read." }]);
  const sent = server.chatRequests[1]?.body?.messages ?? [];
  const assistant = sent.find((m) => m.role === "assistant");
  assert.deepEqual(assistant?.tool_calls?.map((t) => [t.id, t.function.arguments]), [
    [ids[0], '{"path":"a.ts"}'],
    [ids[1], '{"path":"b.ts"}'],
    [ids[2], "{}"],
  ]);
  assert.deepEqual(sent.filter((m) => m.role === "tool").map((m) => m.tool_call_id), ids);
});

Deno.test("stream() takes Ollama's whole calls, vLLM's named tool choice ending in stop, and llama.cpp's object and empty arguments", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.sse(OLLAMA_WHOLE_CALL),
    reply.sse(VLLM_NAMED_TOOL_CHOICE),
    reply.sse(LLAMACPP_OBJECT_AND_EMPTY_ARGUMENTS),
  );
  const c = client(server);
  const ollama = await c.stream(request(), {});
  assert.equal(ollama?.stopReason, "toolUse");
  assert.deepEqual(ollama?.blocks, [
    {
      type: "toolCall",
      id: "call_k2x9c4",
      name: "grep",
      arguments: { path: "src", pattern: "TODO" },
    },
  ]);
  const vllm = await c.stream(request(), {});
  assert.equal(vllm?.stopReason, "toolUse");
  assert.deepEqual(vllm?.blocks, [
    { type: "toolCall", id: "chatcmpl-tool-8b1e", name: "read", arguments: { path: "a.ts" } },
  ]);
  const llamacpp = await c.stream(request(), {});
  const [grep, ls] = calls(llamacpp);
  assert.deepEqual(grep, {
    type: "toolCall",
    id: "Xq3bTmHvV1sR0uPqJfW2kLzN4aEoYc8D",
    name: "grep",
    arguments: { pattern: "TODO", path: "src" },
  });
  assert.equal(ls?.name, "ls");
  assert.deepEqual(ls?.arguments, {});
  assert.ok(ls !== undefined && ls.id !== "" && ls.id !== grep?.id, "an empty id is replaced");
});

Deno.test("stream() announces unique ids when a server repeats one, and uses them in the message", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.deltas([
      { tool_calls: [{ index: 0, id: "call_0", type: "function", function: { name: "ls" } }] },
      { tool_calls: [{ index: 1, id: "call_0", type: "function", function: { name: "ls" } }] },
      { tool_calls: [{ index: 1, id: "call_0", function: { arguments: '{"path":"b"}' } }] },
    ], { finishReason: "tool_calls" }),
  );
  const started: string[] = [];
  const message = await client(server).stream(request(), {
    onEvent: (e) => e.type === "toolcall_start" && started.push(e.id),
  });
  const ids = calls(message).map((b) => b.id);
  assert.equal(ids.length, 2);
  assert.notEqual(ids[0], ids[1]);
  assert.deepEqual(started, ids);
  assert.deepEqual(calls(message).map((b) => b.arguments), [{}, { path: "b" }]);
});

Deno.test("stream() maps Mistral's model_length, end and unknown finish reasons without failing", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.sse(MISTRAL_MODEL_LENGTH),
    reply.text("fine", { finishReason: "end" }),
    reply.sse(UNKNOWN_FINISH_REASON),
    reply.toolCalls([{ id: "t1", name: "ls", arguments: {} }], { finishReason: "eos" }),
  );
  const c = client(server);
  const mistral = await c.stream(request(), {});
  assert.equal(mistral?.stopReason, "maxTokens");
  assert.equal(mistral?.rawStopReason, "model_length");
  assert.deepEqual(mistral?.blocks, [{ type: "text", text: "A long answer" }]);
  const end = await c.stream(request(), {});
  assert.deepEqual([end?.stopReason, end?.rawStopReason], ["stop", "end"]);
  const unknown = await c.stream(request(), {});
  assert.deepEqual([unknown?.stopReason, unknown?.rawStopReason], ["error", "eos_token_reached"]);
  assert.deepEqual(unknown?.blocks, [{ type: "text", text: "Done here." }]);
  const withCall = await c.stream(request(), {});
  assert.deepEqual([withCall?.stopReason, withCall?.rawStopReason], ["toolUse", "eos"]);
});

Deno.test("isTransientStreamError() decides by the body's code, status and type", () => {
  const cases: Array<[unknown, boolean]> = [
    [{ code: 500, message: "Compute error.", type: "server_error" }, true], // llama.cpp
    [{ code: 400, message: "bad", type: "invalid_request_error" }, false],
    [{ code: "server_error", message: "Provider disconnected unexpectedly" }, true], // OpenRouter
    [{ code: 429, message: "Rate limited" }, true],
    [{ code: 402, message: "Insufficient credits" }, false],
    [{ code: "503" }, true],
    [{ status: 408 }, true],
    [{ type: "invalid_request_error", code: "tool_use_failed" }, false], // Groq
    [{ type: "overloaded_error", message: "Overloaded" }, true],
    [{ type: "server_error", code: "insufficient_quota" }, false],
    [{ error: { code: 502, message: "Upstream" } }, true],
    [{ message: "something went wrong" }, false],
    ["a plain string", false],
    [undefined, false],
  ];
  for (const [body, transient] of cases) {
    assert.equal(isTransientStreamError(body), transient, JSON.stringify(body));
  }
});
