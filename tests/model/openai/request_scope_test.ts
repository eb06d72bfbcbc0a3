/**
 * What each server family is sent and what it never is: the `developer` role only to OpenAI's own
 * reasoning models (DeepSeek rejects it, Ollama's templates drop it), and another provider's
 * echoes (DeepSeek's reasoning_content, Gemini's thought_signature, OpenRouter's
 * reasoning_details) never to a Mistral endpoint, which answers 422 for any field it does not know.
 */
import assert from "node:assert/strict";
import type { Message } from "../../../src/model/types.ts";
import type { ProfileName } from "../../../src/model/profiles/mod.ts";
import { reply, startFakeOpenAI } from "../../support/fake_openai.ts";
import { strictTemplate } from "../../support/strict_template.ts";
import { client, readTool, request } from "./_helpers.ts";

Deno.test("the system prompt goes as `system` to every family but OpenAI's own reasoning models", async () => {
  const cases: Array<[ProfileName | undefined, string, string]> = [
    ["deepseek", "deepseek-reasoner", "system"],
    ["ollama", "gpt-oss:20b", "system"],
    ["ollama", "o3-mini", "system"],
    ["llamacpp", "gpt-5-mini-gguf", "system"],
    ["openrouter", "openai/o3-mini", "system"],
    ["vllm", "openai/gpt-oss-120b", "system"],
    [undefined, "o3-mini", "system"],
    ["openai", "gpt-4.1", "system"],
    ["openai", "o3-mini", "developer"],
    ["openai", "gpt-5", "developer"],
  ];
  for (const [provider, model, role] of cases) {
    await using server = await startFakeOpenAI();
    server.script(reply.text("ok"));
    await client(server, { model, ...(provider === undefined ? {} : { provider }) })
      .stream(request(), {});
    const sent = server.requests[0]?.body?.messages.map((m) => m.role);
    assert.deepEqual(sent, [role, "user"], `${provider ?? "generic"} ${model}`);
  }
});

const USAGE = { inputTokens: 1, outputTokens: 1, cachedTokens: 0, totalTokens: 2 };

/** A tool round trip recorded on `origin` with each provider's echo fields. */
function recordedElsewhere(origin: string): Message[] {
  return [
    { role: "user", content: "Read a.txt." },
    {
      role: "assistant",
      blocks: [{
        type: "toolCall",
        id: "function-call-7731",
        name: "read",
        arguments: { path: "a.txt" },
        echo: { origin, fields: { extra_content: { google: { thought_signature: "CsYB==" } } } },
      }],
      thinking: "I should read it.",
      echo: {
        origin,
        fields: {
          reasoning_content: "I should read it.",
          reasoning_details: [{ type: "reasoning.text", text: "I should read it.", index: 0 }],
        },
      },
      stopReason: "toolUse",
      usage: USAGE,
    },
    {
      role: "toolResult",
      results: [{
        toolCallId: "function-call-7731",
        toolName: "read",
        content: "A",
        isError: false,
      }],
    },
    { role: "user", content: "And now?" },
  ];
}

/** The message and tool-call keys Mistral's chat completions schema knows (docs.mistral.ai/api). */
const MESSAGE_KEYS = new Set(["role", "content", "tool_calls", "tool_call_id", "name", "prefix"]);
const CALL_KEYS = new Set(["id", "type", "function", "index"]);

for (const origin of ["https://api.deepseek.com/v1", "https://openrouter.ai/api/v1"]) {
  Deno.test(`a session recorded on ${new URL(origin).host} resumed on Mistral sends no field Mistral does not know`, async () => {
    await using server = await startFakeOpenAI();
    const seen: string[][] = [];
    server.script(strictTemplate(() => reply.text("ok"), { alnum9Ids: true, seen }));
    await client(server, { provider: "mistral" }).stream(
      request({ messages: recordedElsewhere(origin), tools: [readTool] }),
      {},
    );
    assert.deepEqual(seen, [[]]);
    for (const m of server.requests[0]?.body?.messages ?? []) {
      for (const key of Object.keys(m)) assert.ok(MESSAGE_KEYS.has(key), `message key ${key}`);
      for (const call of m.tool_calls ?? []) {
        for (const key of Object.keys(call)) assert.ok(CALL_KEYS.has(key), `tool call key ${key}`);
      }
    }
  });
}
