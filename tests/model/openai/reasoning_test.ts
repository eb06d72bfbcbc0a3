/** Reasoning as each server streams it: read apart from the answer, echoed only where required. */
import assert from "node:assert/strict";
import type {
  AssistantMessage,
  Message,
  ModelStreamEvent,
  ToolCallBlock,
} from "../../../src/model/types.ts";
import { messageProblem } from "../../../src/session/validate.ts";
import { type FakeOpenAIServer, reply, startFakeOpenAI } from "../../support/fake_openai.ts";
import {
  DEEPSEEK_THINKING_TOOL_CALL,
  GEMINI_THOUGHT_SIGNATURE,
  LLAMACPP_REASONING_CONTENT,
  MISTRAL_MAGISTRAL_CHUNKS,
  OLLAMA_REASONING,
  OPENROUTER_REASONING_DETAILS,
  VLLM_NO_PARSER_THINK_TAGS,
  VLLM_REASONING,
} from "../reasoning_fixtures.ts";
import { client, readTool, request } from "./_helpers.ts";
import type { OpenAiClientOptions } from "../../../src/model/openai/mod.ts";

async function streamed(deltas: Record<string, unknown>[], finishReason?: string) {
  await using server = await startFakeOpenAI();
  server.script(reply.deltas(deltas, finishReason === undefined ? {} : { finishReason }));
  const events: ModelStreamEvent[] = [];
  const message = await client(server).stream(request({ tools: [readTool] }), {
    onEvent: (e) => events.push(e),
  });
  const joined = (type: "text_delta" | "thinking_delta") =>
    events.flatMap((e) => e.type === type ? [e.delta] : []).join("");
  return { message, text: joined("text_delta"), thinking: joined("thinking_delta") };
}

const answerOf = (m: AssistantMessage | null) =>
  m?.blocks.flatMap((b) => b.type === "text" ? [b.text] : []).join("");

for (
  const [server, deltas, thinking, answer] of [
    ["vLLM (reasoning)", VLLM_REASONING, "9.11 < 9.8 because 0.11 < 0.8.", "9.8 is greater."],
    ["llama.cpp (reasoning_content)", LLAMACPP_REASONING_CONTENT, "Short question.", "Hello!"],
    ["Ollama (reasoning)", OLLAMA_REASONING, "We need answer", "Hi there."],
    [
      "Mistral Magistral (content chunks)",
      MISTRAL_MAGISTRAL_CHUNKS,
      "Two plus two is four.",
      "2 + 2 = 4.",
    ],
    [
      "a server without a reasoning parser (<think>)",
      VLLM_NO_PARSER_THINK_TAGS,
      "\nThe answer is 4.",
      "2 + 2 = 4.",
    ],
  ] as const
) {
  Deno.test(`stream() reads the reasoning of ${server} apart from the answer`, async () => {
    const got = await streamed([...deltas]);
    assert.equal(got.message?.thinking, thinking);
    assert.equal(answerOf(got.message), answer);
    assert.equal(got.thinking, thinking, "thinking_delta events");
    assert.equal(got.text, answer, "text_delta events carry only the answer");
  });
}

Deno.test("stream() keeps <think> text that is not at the start of the content as the answer", async () => {
  const got = await streamed([{ content: "Use " }, { content: "<think> tags</think> like this." }]);
  assert.equal(got.message?.thinking, undefined);
  assert.equal(answerOf(got.message), "Use <think> tags</think> like this.");
});

Deno.test("stream() gives a content that is only the start of <think> back as text", async () => {
  const got = await streamed([{ content: "<thi" }]);
  assert.equal(answerOf(got.message), "<thi");
  assert.equal(got.text, "<thi");
});

Deno.test("stream() counts OpenRouter's reasoning once and keeps its reasoning_details merged by index", async () => {
  const got = await streamed(OPENROUTER_REASONING_DETAILS, "tool_calls");
  assert.equal(got.message?.thinking, "Read a.txt first.");
  assert.equal(got.thinking, "Read a.txt first.");
  assert.equal(got.text, "");
  assert.deepEqual(got.message?.echo?.fields, {
    reasoning_details: [
      {
        type: "reasoning.text",
        text: "Read a.txt first.",
        signature: "EqQBCkYIBxgC",
        format: "anthropic-claude-v1",
        index: 0,
      },
      { type: "reasoning.encrypted", data: "gAAAAABo", format: "anthropic-claude-v1", index: 1 },
    ],
  });
});

/** Runs a tool-call turn from `first` and the follow-up request; returns the follow-up's messages. */
async function followUp(
  server: FakeOpenAIServer,
  first: Record<string, unknown>[],
  options: Partial<OpenAiClientOptions> = {},
  nextServer?: FakeOpenAIServer,
) {
  server.script(reply.deltas(first, { finishReason: "tool_calls" }));
  const model = client(server, options);
  const message = await model.stream(request({ tools: [readTool] }), {});
  assert.ok(message !== null);
  const call = message.blocks.find((b): b is ToolCallBlock => b.type === "toolCall");
  assert.ok(call !== undefined, "the reply has a tool call");
  // What a session stores and loads again.
  const stored = JSON.parse(JSON.stringify(message)) as AssistantMessage;
  assert.equal(messageProblem(stored), null);
  const history: Message[] = [
    { role: "user", content: "hello" },
    stored,
    {
      role: "toolResult",
      results: [{ toolCallId: call.id, toolName: "read", content: "alpha", isError: false }],
    },
  ];
  const target = nextServer ?? server;
  target.script(reply.text("Done."));
  const nextClient = nextServer === undefined ? model : client(nextServer, options);
  await nextClient.stream(request({ tools: [readTool], messages: history }), {});
  const sent = target.chatRequests.at(-1)?.body?.messages ?? [];
  const assistant = sent.find((m) => m.role === "assistant");
  assert.ok(assistant !== undefined);
  return { assistant, stored };
}

Deno.test("DeepSeek thinking mode: reasoning_content goes back on the tool-call turn", async () => {
  await using server = await startFakeOpenAI();
  const { assistant, stored } = await followUp(server, DEEPSEEK_THINKING_TOOL_CALL, {
    echoReasoningContent: true,
  });
  assert.equal(stored.thinking, "The user wants a.txt, so I read it.");
  assert.equal(assistant.reasoning_content, "The user wants a.txt, so I read it.");
  assert.equal(assistant.content, null, "the reasoning is not sent as text");
});

Deno.test("reasoning_content is not sent back to a server that does not require it", async () => {
  await using server = await startFakeOpenAI();
  // llama.cpp streams reasoning_content too; its base URL is not DeepSeek's.
  const { assistant } = await followUp(server, DEEPSEEK_THINKING_TOOL_CALL);
  assert.deepEqual(Object.keys(assistant).sort(), ["content", "role", "tool_calls"]);
});

Deno.test("Gemini: each tool call's extra_content goes back verbatim, to the same server only", async () => {
  await using server = await startFakeOpenAI();
  const { assistant } = await followUp(server, GEMINI_THOUGHT_SIGNATURE);
  assert.deepEqual(assistant.tool_calls?.[0], {
    id: "function-call-7731",
    type: "function",
    function: { name: "read", arguments: '{"path":"a.txt"}' },
    extra_content: { google: { thought_signature: "CsYBAdHtim9+Q2==" } },
  });
  await using other = await startFakeOpenAI();
  const moved = await followUp(server, GEMINI_THOUGHT_SIGNATURE, {}, other);
  assert.deepEqual(Object.keys(moved.assistant.tool_calls?.[0] ?? {}).sort(), [
    "function",
    "id",
    "type",
  ]);
});

Deno.test("OpenRouter: reasoning_details are replayed with their tool call, never elsewhere", async () => {
  await using server = await startFakeOpenAI();
  const { assistant } = await followUp(server, OPENROUTER_REASONING_DETAILS);
  assert.equal((assistant.reasoning_details as unknown[]).length, 2);
  assert.equal(assistant.reasoning_content, undefined);
  await using other = await startFakeOpenAI();
  const moved = await followUp(server, OPENROUTER_REASONING_DETAILS, {}, other);
  assert.equal(moved.assistant.reasoning_details, undefined);
});

Deno.test("messageProblem() names a malformed thinking or echo of an assistant message", () => {
  const base = {
    role: "assistant",
    blocks: [],
    stopReason: "stop",
    usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 },
  };
  assert.equal(
    messageProblem({ ...base, thinking: "ok", echo: { origin: "u", fields: {} } }),
    null,
  );
  assert.equal(
    messageProblem({ ...base, thinking: 3 }),
    `the assistant message's "thinking" is not a string`,
  );
  assert.equal(
    messageProblem({ ...base, echo: { origin: "u" } }),
    `the assistant message's "echo.fields" is not an object`,
  );
  assert.equal(
    messageProblem({
      ...base,
      blocks: [{ type: "toolCall", id: "c", name: "read", arguments: {}, echo: "x" }],
    }),
    `the assistant message's block 1's "echo" is not an object`,
  );
});

Deno.test("toChatParams() sends reasoning_content back to DeepSeek's API by default, on tool-call turns only", async () => {
  const { toChatParams } = await import("../../../src/model/openai/wire.ts");
  const origin = "https://api.deepseek.com/v1";
  const usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 };
  const echo = (text: string) => ({ origin, fields: { reasoning_content: text } });
  const messages: Message[] = [
    { role: "user", content: "hi" },
    {
      role: "assistant",
      blocks: [{ type: "text", text: "Hello." }],
      stopReason: "stop",
      usage,
      thinking: "greet",
      echo: echo("greet"),
    },
    { role: "user", content: "read a.txt" },
    {
      role: "assistant",
      blocks: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.txt" } }],
      stopReason: "toolUse",
      usage,
      thinking: "read it",
      echo: echo("read it"),
    },
    {
      role: "toolResult",
      results: [{ toolCallId: "c1", toolName: "read", content: "alpha", isError: false }],
    },
  ];
  const wire = (baseURL: string) =>
    toChatParams(request({ messages }), { model: "deepseek-chat", baseURL }).messages
      .filter((m) => m.role === "assistant") as unknown as Array<Record<string, unknown>>;
  const [plain, withCall] = wire(origin);
  assert.equal(plain?.reasoning_content, undefined, "a turn without calls needs none");
  assert.equal(withCall?.reasoning_content, "read it");
  assert.ok(wire("https://api.mistral.ai/v1").every((m) => !("reasoning_content" in m)));
});
