/**
 * Server profiles through the real SDK and the fake server: the request each family gets, the
 * profile detected from the server's /v1/models, and a rejected field, role or budget learned once
 * and the same request sent again (wordings from the servers' issue trackers, cited per test).
 */
import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import type { Message } from "../../../src/model/types.ts";
import { fault, repeat, reply, startFakeOpenAI } from "../../support/fake_openai.ts";
import { strictTemplate } from "../../support/strict_template.ts";
import { client, readTool, request } from "./_helpers.ts";

/** The parts of a wire message these tests read. */
interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string }>;
  tool_call_id?: string;
}

/** A JSON-schema object as sent. */
type Schema = Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };

const USAGE = { inputTokens: 1, outputTokens: 1, cachedTokens: 0, totalTokens: 2 };

/** A tool round trip whose ids came from another server, then two user messages in a row. */
function foreignHistory(): Message[] {
  return [
    { role: "user", content: "Read a.txt." },
    {
      role: "assistant",
      blocks: [
        { type: "toolCall", id: "call_abc-123_long", name: "read", arguments: { path: "a" } },
        { type: "toolCall", id: "call_def-456_long", name: "read", arguments: { path: "b" } },
      ],
      stopReason: "toolUse",
      usage: USAGE,
    },
    {
      role: "toolResult",
      results: [
        { toolCallId: "call_abc-123_long", toolName: "read", content: "A", isError: false },
        { toolCallId: "call_def-456_long", toolName: "read", content: "B", isError: false },
      ],
    },
    { role: "user", content: "The turn was interrupted." },
    { role: "user", content: "Go on." },
  ];
}

Deno.test("the mistral profile: 9-alphanumeric ids in both places, alternating roles, no stream_options", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.text("ok"));
  const c = client(server, { provider: "mistral" });
  await c.stream(
    request({ messages: foreignHistory(), tools: [readTool], maxOutputTokens: 99 }),
    {},
  );
  const body = server.requests[0]?.body as Record<string, unknown> & {
    messages: WireMessage[];
  };
  const calls = body.messages[2]?.tool_calls ?? [];
  const ids = calls.map((call) => call.id);
  for (const id of ids) assert.match(id, /^[A-Za-z0-9]{9}$/);
  assert.notEqual(ids[0], ids[1], "distinct ids stay distinct");
  assert.deepEqual(body.messages.slice(3, 5).map((m) => m.tool_call_id), ids);
  assert.equal(body.messages[2]?.content, "", "an assistant message with calls gets content");
  assert.equal(body.messages.length, 7, "the two user messages became one");
  assert.deepEqual(body.messages[5], {
    role: "assistant",
    content: "(Tool results received.)",
  }, "no user message right after a tool message (mistral-common)");
  assert.equal(body.messages[6]?.content, "The turn was interrupted.\n\nGo on.");
  assert.equal("stream_options" in body, false);
  assert.equal(body.max_tokens, 99);
  assert.equal("max_completion_tokens" in body, false);
  // The same history gives the same ids (deterministic from the original id).
  server.script(reply.text("again"));
  await c.stream(request({ messages: foreignHistory(), tools: [readTool] }), {});
  const again = server.requests[1]?.body as { messages: WireMessage[] };
  assert.deepEqual(again.messages[2]?.tool_calls?.map((call) => call.id), ids);
});

Deno.test("the gemini profile strips $schema and additionalProperties from tool parameters", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.text("ok"));
  const tool = {
    name: "edit",
    description: "Edits.",
    parameters: Type.Object({
      $schema: Type.Optional(Type.String()),
      // A property named like the keyword is a property, not the keyword: it stays.
      additionalProperties: Type.Optional(Type.Object({ x: Type.String() }, {
        additionalProperties: false,
      })),
    }, { additionalProperties: false, $schema: "http://json-schema.org/draft-07/schema#" }),
  };
  await client(server, { provider: "gemini" }).stream(request({ tools: [tool] }), {});
  const tools = server.requests[0]?.body?.tools as Array<{ function: { parameters: Schema } }>;
  const fn = tools[0]!.function;
  assert.deepEqual(Object.keys(fn.parameters).sort(), ["properties", "type"]);
  assert.deepEqual(Object.keys(fn.parameters.properties).sort(), [
    "$schema",
    "additionalProperties",
  ]);
  const inner = fn.parameters.properties.additionalProperties;
  assert.ok(inner !== undefined);
  assert.equal("additionalProperties" in inner, false);
});

Deno.test("llama.cpp is asked for parallel tool calls; detected from /v1/models after contextWindow()", async () => {
  await using server = await startFakeOpenAI({
    modelInfo: { owned_by: "llamacpp" },
    props: { default_generation_settings: { n_ctx: 8192 } },
  });
  server.script(reply.text("first"), reply.text("second"));
  const c = client(server);
  await c.stream(request({ tools: [readTool], maxOutputTokens: 50 }), {});
  const before = server.requests.find((r) => r.method === "POST")?.body;
  assert.equal("parallel_tool_calls" in (before ?? {}), false, "generic until the server says");
  assert.equal(await c.contextWindow?.({}), 8192);
  await c.stream(request({ tools: [readTool], maxOutputTokens: 50 }), {});
  const after = server.requests.filter((r) => r.method === "POST")[1]?.body;
  assert.equal(after?.parallel_tool_calls, true);
  assert.equal(after?.max_tokens, 50);
  assert.deepEqual(
    server.requests.map((r) => `${r.method} ${r.path}`),
    ["POST /v1/chat/completions", "GET /v1/models", "GET /props", "POST /v1/chat/completions"],
    "detection reads the metadata the window comes from: no request of its own",
  );
});

Deno.test("OpenAI's reasoning models get `developer`; DeepSeek's rejection of it is learned and the request sent again", async () => {
  await using server = await startFakeOpenAI();
  // github.com/earendil-works/pi/issues/1048 (DeepSeek's wording).
  server.script(
    fault.status(400, {
      message: "Failed to deserialize the JSON body into the target type: messages[0].role: " +
        "unknown variant `developer`, expected one of `system`, `user`, `assistant`, `tool` at " +
        "line 1 column 85",
    }),
    reply.text("ok"),
  );
  const warnings: string[] = [];
  const retries: unknown[] = [];
  const c = client(server, {
    provider: "openai",
    model: "o3-mini",
    onWarning: (m) => warnings.push(m),
  });
  const message = await c.stream(request(), { onRetry: (r) => retries.push(r) });
  assert.equal(message?.blocks[0]?.type === "text" && message.blocks[0].text, "ok");
  assert.equal(server.requests[0]?.body?.messages?.[0]?.role, "developer");
  assert.equal(server.requests[1]?.body?.messages?.[0]?.role, "system");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /rejected the developer role \(HTTP 400\)/);
  assert.match(warnings[0]!, /\{"compat":\{"systemRole":"system"\}\}/);
  assert.deepEqual(retries, [], "a learned switch is not a retry");
});

Deno.test("a 422 naming stream_options is learned once per run: later requests leave it out", async () => {
  await using server = await startFakeOpenAI();
  // github.com/gpustack/gpustack/issues/429 and Mistral's 422 (Pydantic "extra_forbidden").
  const rejection = fault.status(422, {
    message: `[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra ` +
      `inputs are not permitted', 'input': {'include_usage': True}}]`,
  });
  server.script(rejection, reply.text("one"), reply.text("two"));
  const warnings: string[] = [];
  const c = client(server, { onWarning: (m) => warnings.push(m) });
  await c.stream(request(), {});
  await c.stream(request(), {});
  const bodies = server.requests.map((r) => r.body ?? {});
  assert.deepEqual(bodies.map((b) => "stream_options" in b), [true, false, false]);
  assert.match(warnings[0] ?? "", /"streamOptions":false/);
  assert.equal(warnings.length, 1);
});

Deno.test("a rejected field is learned at most once per cause: the same rejection again is the error", async () => {
  await using server = await startFakeOpenAI();
  const rejection = fault.status(400, {
    message: "Unrecognized request argument supplied: parallel_tool_calls",
  });
  server.script(rejection, rejection);
  const c = client(server, { compat: { parallelToolCalls: true } });
  await assert.rejects(c.stream(request({ tools: [readTool] }), {}), /parallel_tool_calls/);
  assert.equal(server.requests.length, 2);
  assert.equal(server.requests[0]?.body?.parallel_tool_calls, true);
  assert.equal("parallel_tool_calls" in (server.requests[1]?.body ?? {}), false);
});

Deno.test("vLLM's 'max_tokens is too large' is not an overflow: the request is sent again with the budget it allows", async () => {
  await using server = await startFakeOpenAI();
  // vLLM serving_engine's wording (tests/model/overflow_fixtures.ts holds the same one).
  server.script(
    fault.status(400, {
      message: "'max_tokens' or 'max_completion_tokens' is too large: 4000. This model's maximum " +
        "context length is 4096 tokens and your request has 3000 input tokens (4000 > 4096 - 3000).",
    }),
    reply.text("ok"),
  );
  const c = client(server, { provider: "vllm" });
  await c.stream(request({ maxOutputTokens: 4000 }), {});
  assert.deepEqual(server.requests.map((r) => r.body?.max_tokens), [4000, 1096]);
});

Deno.test("the config's compat wins over the profile, and a switch off is never 'learned'", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.status(400, { message: "Unknown parameter: 'store'." }));
  const c = client(server, { provider: "mistral", compat: { streamOptions: true, store: "omit" } });
  await assert.rejects(c.stream(request({ maxOutputTokens: 10 }), {}));
  assert.equal(server.requests.length, 1, "store was not sent, so it cannot be the cause");
  assert.deepEqual(server.requests[0]?.body?.stream_options, { include_usage: true });
  assert.equal(server.requests[0]?.body?.max_tokens, 10, "the switches not overridden: Mistral's");
});

Deno.test("images to a text-only model: the 500 is learned once, not retried, and placeholders go after", async () => {
  await using server = await startFakeOpenAI();
  // llama.cpp tools/server (utils.cpp) without --mmproj; Ollama and vLLM word it their own way.
  const rejection = fault.status(500, {
    message:
      "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
  });
  server.script(rejection, reply.text("one"), reply.text("two"));
  const png =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  const messages: Message[] = [{
    role: "user",
    content: [{ type: "text", text: "What is this?" }, {
      type: "image",
      data: png,
      mimeType: "image/png",
    }],
  }];
  const warnings: string[] = [];
  const retries: unknown[] = [];
  const c = client(server, { provider: "llamacpp", onWarning: (m) => warnings.push(m) });
  const message = await c.stream(request({ messages }), { onRetry: (r) => retries.push(r) });
  assert.equal(message?.blocks[0]?.type === "text" && message.blocks[0].text, "one");
  await c.stream(request({ messages }), {});
  const raws = server.requests.map((r) => r.rawBody);
  assert.equal(raws.length, 3);
  assert.deepEqual(raws.map((raw) => raw.includes("image_url")), [true, false, false]);
  for (const raw of raws.slice(1)) {
    assert.equal(raw.includes(png), false);
    assert.match(raw, /image omitted \(image\/png\)/);
  }
  assert.deepEqual(retries, [], "the learned resend is not a retry");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /HTTP 500/);
  assert.match(warnings[0]!, /\{"compat":\{"vision":false\}\}/);
});

Deno.test("a rejection of images is learned only when the request carried one", async () => {
  await using server = await startFakeOpenAI();
  // Ollama's runner (model/model.go ErrNoVisionModel), here for a request without images.
  server.script(
    fault.status(400, { message: "this model is missing data required for image input" }),
  );
  const warnings: string[] = [];
  const c = client(server, { onWarning: (m) => warnings.push(m) });
  await assert.rejects(c.stream(request(), {}), /missing data required for image input/);
  assert.equal(server.requests.length, 1);
  assert.deepEqual(warnings, []);
});

Deno.test("Ollama on another port: its /api/version names it when /v1/models does not, and only then", async () => {
  // ollama openai/openai.go: owned_by is the model's namespace ("bartowski" for an hf.co model,
  // "library" only for official ones); server/routes.go answers /api/version {"version": …}.
  const model = "hf.co/bartowski/Qwen2.5-Coder-7B-Instruct-GGUF:Q4_K_M";
  await using ollama = await startFakeOpenAI({
    models: [model],
    modelInfo: { owned_by: "bartowski" },
    ollamaVersion: "0.12.3",
  });
  ollama.script(reply.text("ok"));
  const c = client(ollama, { model });
  assert.equal(await c.contextWindow?.({}), undefined);
  await c.stream(request({ maxOutputTokens: 50 }), {});
  assert.deepEqual(
    ollama.requests.map((r) => `${r.method} ${r.path}`),
    ["GET /v1/models", "GET /api/version", "POST /v1/chat/completions"],
    "asked at the server root, after the model list",
  );
  assert.equal(ollama.chatRequests[0]?.body?.max_tokens, 50, "Ollama's profile");

  // Named by its model entry: /api/version is not asked.
  await using vllm = await startFakeOpenAI({ modelInfo: { owned_by: "vllm" } });
  await client(vllm).contextWindow?.({});
  assert.deepEqual(vllm.requests.map((r) => r.path), ["/v1/models"]);

  // No /api/version (a 404): still generic, the budget in OpenAI's field.
  await using other = await startFakeOpenAI({ models: ["test-model"] });
  other.script(reply.text("ok"));
  const o = client(other);
  await o.contextWindow?.({});
  await o.stream(request({ maxOutputTokens: 50 }), {});
  assert.equal(other.chatRequests[0]?.body?.max_completion_tokens, 50);
});

Deno.test("a profile already chosen (--provider, the URL) leaves Ollama's /api/version unasked", async () => {
  await using server = await startFakeOpenAI({ models: ["test-model"], ollamaVersion: "0.12.3" });
  await client(server, { provider: "vllm" }).contextWindow?.({});
  assert.deepEqual(server.requests.map((r) => r.path), ["/v1/models"]);
});

Deno.test("a strict template's refusal of the roles' order is learned: the request goes again alternating", async () => {
  await using server = await startFakeOpenAI();
  // A vLLM or unknown server rendering a Mistral template: 500/400 "…roles must alternate…".
  const seen: string[][] = [];
  server.script(repeat(strictTemplate(() => reply.text("ok"), { seen })));
  const warnings: string[] = [];
  const c = client(server, { provider: "vllm", onWarning: (m) => warnings.push(m) });
  const message = await c.stream(request({ messages: foreignHistory(), tools: [readTool] }), {});
  assert.equal(message?.blocks[0]?.type === "text" && message.blocks[0].text, "ok");
  assert.equal(seen.length, 2, "one refusal, then the same request alternating");
  assert.notDeepEqual(seen[0], []);
  assert.deepEqual(seen[1], []);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /order of the roles/);
  assert.match(warnings[0]!, /\{"compat":\{"alternateRoles":true,"emptyToolContent":"empty"\}\}/);
  // Learned for the run: the next request is alternated at once.
  await c.stream(request({ messages: foreignHistory(), tools: [readTool] }), {});
  assert.equal(seen.length, 3);
  assert.deepEqual(seen[2], []);
});
