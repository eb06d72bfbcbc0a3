/** Tool calls a server returned as text: real calls for offered tools, one warning naming the fix. */
import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import { toChatParams } from "../../../src/model/openai/wire.ts";
import type { AssistantMessage, ModelStreamEvent, ToolSpec } from "../../../src/model/types.ts";
import { reply, startFakeOpenAI } from "../../support/fake_openai.ts";
import {
  OLLAMA_UNPARSED_JSON_BLOCK,
  VLLM_UNPARSED_HERMES,
  VLLM_UNPARSED_LLAMA,
  VLLM_UNPARSED_MISTRAL,
} from "../reasoning_fixtures.ts";
import { client, readTool, request } from "./_helpers.ts";

const lsTool: ToolSpec = {
  name: "ls",
  description: "Lists a directory.",
  parameters: Type.Object({ path: Type.String() }),
};

const calls = (blocks: AssistantMessage["blocks"]) =>
  blocks.flatMap((b) => b.type === "toolCall" ? [{ name: b.name, arguments: b.arguments }] : []);

for (
  const [name, deltas, text, expected, flag] of [
    ["Hermes/Qwen <tool_call>", VLLM_UNPARSED_HERMES, "I'll read it.", [
      { name: "read", arguments: { path: "a.txt" } },
    ], "--tool-call-parser hermes"],
    ["Llama <|python_tag|>", VLLM_UNPARSED_LLAMA, undefined, [
      { name: "read", arguments: { path: "a.txt" } },
      { name: "ls", arguments: { path: "." } },
    ], "--tool-call-parser llama3_json"],
    ["Mistral [TOOL_CALLS]", VLLM_UNPARSED_MISTRAL, undefined, [
      { name: "read", arguments: { path: "a.txt" } },
    ], "--tool-call-parser mistral"],
    ["a ```json block", OLLAMA_UNPARSED_JSON_BLOCK, "Reading the file now.", [
      { name: "read", arguments: { path: "a.txt" } },
    ], "--jinja"],
  ] as const
) {
  Deno.test(`stream() turns ${name} calls written as text into tool calls and warns once`, async () => {
    await using server = await startFakeOpenAI();
    server.script(reply.deltas([...deltas]), reply.deltas([...deltas]));
    const model = client(server);
    const events: ModelStreamEvent[] = [];
    const options = { onEvent: (e: ModelStreamEvent) => events.push(e) };
    const tools = [readTool, lsTool];
    const message = await model.stream(request({ tools }), options);
    assert.equal(message?.stopReason, "toolUse");
    assert.deepEqual(calls(message?.blocks ?? []), expected);
    const texts = message?.blocks.flatMap((b) => b.type === "text" ? [b.text] : []);
    assert.deepEqual(texts, text === undefined ? [] : [text]);
    const ids = message?.blocks.flatMap((b) => b.type === "toolCall" ? [b.id] : []) ?? [];
    assert.equal(new Set(ids).size, expected.length, "each call has its own id");
    // The recovered calls go back as real tool calls.
    const params = toChatParams(
      request({
        tools,
        messages: [{ role: "user", content: "go" }, message!, {
          role: "toolResult",
          results: ids.map((id) => ({
            toolCallId: id,
            toolName: "read",
            content: "x",
            isError: false,
          })),
        }],
      }),
      { model: "m" },
    );
    const wireCalls = params.messages.find((m) => m.role === "assistant");
    assert.equal((wireCalls as { tool_calls?: unknown[] }).tool_calls?.length, expected.length);
    const streamed = events.flatMap((e) => e.type === "text_delta" ? [e.delta] : []).join("");
    assert.equal(streamed.trim(), text ?? "", "the markup is not streamed as the answer");
    const second = await model.stream(request({ tools }), options);
    assert.equal(calls(second?.blocks ?? []).length, expected.length);
    const warnings = events.filter((e) => e.type === "warning");
    assert.equal(warnings.length, 1, "told once per client");
    const warning = warnings[0]?.type === "warning" ? warnings[0].message : "";
    assert.match(warning, /returned tool calls as text/);
    assert.ok(warning.includes(flag), warning);
    assert.ok(warning.includes(server.baseURL), warning);
  });
}

Deno.test("stream() leaves a call of a tool that was not offered as text, without a warning", async () => {
  await using server = await startFakeOpenAI();
  const text = '<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>';
  server.script(reply.deltas([{ content: text }]));
  const events: ModelStreamEvent[] = [];
  const message = await client(server).stream(request({ tools: [readTool] }), {
    onEvent: (e) => events.push(e),
  });
  assert.equal(message?.stopReason, "stop");
  assert.deepEqual(message?.blocks, [{ type: "text", text }]);
  assert.equal(events.filter((e) => e.type === "warning").length, 0);
  const streamed = events.flatMap((e) => e.type === "text_delta" ? [e.delta] : []).join("");
  assert.equal(streamed, text, "held-back text is shown after all");
});

Deno.test("stream() leaves JSON that is not a call, and markup without tools offered, as text", async () => {
  await using server = await startFakeOpenAI();
  const data = 'Here is the config:\n```json\n{"name": "moat", "version": 1}\n```';
  const markup = '<tool_call>{"name": "read", "arguments": {"path": "a.txt"}}</tool_call>';
  server.script(reply.deltas([{ content: data }]), reply.deltas([{ content: markup }]));
  const model = client(server);
  const first = await model.stream(request({ tools: [readTool] }), {});
  assert.deepEqual(first?.blocks, [{ type: "text", text: data }]);
  const second = await model.stream(request({ tools: [] }), {});
  assert.deepEqual(second?.blocks, [{ type: "text", text: markup }]);
});

Deno.test("stream() reads Mistral's newer [TOOL_CALLS]name[ARGS]{…} form", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.deltas([{ content: '[TOOL_CALLS]read[ARGS]{"path": "a.txt"}' }]));
  const message = await client(server).stream(request({ tools: [readTool] }), {});
  assert.deepEqual(calls(message?.blocks ?? []), [{ name: "read", arguments: { path: "a.txt" } }]);
});
