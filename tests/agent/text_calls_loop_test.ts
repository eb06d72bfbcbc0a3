/**
 * Tool calls a server without a tool parser wrote as text (vLLM without `--tool-call-parser`,
 * llama.cpp without `--jinja`, Ollama without a tools template), through the agent loop, the real
 * SDK and the fake server: each markup's calls run as tools, their results go back as tool
 * messages, and the user is told once which server flag parses them.
 */
import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import { runAgentLoop } from "../../src/agent/mod.ts";
import type { Tool } from "../../src/agent/tool.ts";
import { createOpenAiClient } from "../../src/model/openai/mod.ts";
import type { Message } from "../../src/model/types.ts";
import { systemClock } from "../../src/sys/clock.ts";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { assertHistoryAcceptable } from "../support/history_check.ts";
import {
  OLLAMA_UNPARSED_JSON_BLOCK,
  VLLM_UNPARSED_HERMES,
  VLLM_UNPARSED_LLAMA,
  VLLM_UNPARSED_MISTRAL,
} from "../model/reasoning_fixtures.ts";
import { user } from "./_helpers.ts";

const PathParams = Type.Object({ path: Type.String({ description: "A path" }) });

function recordingTool(name: string, ran: string[]): Tool<typeof PathParams> {
  return {
    name,
    description: `${name} a path.`,
    parameters: PathParams,
    kind: "read",
    concurrencySafe: true,
    execute: (args) => {
      ran.push(`${name} ${args.path}`);
      return Promise.resolve({ output: `${name} of ${args.path}: alpha` });
    },
  };
}

const MARKUPS = [
  ["Hermes/Qwen <tool_call>", VLLM_UNPARSED_HERMES, ["read a.txt"], /--tool-call-parser hermes/],
  ["Llama <|python_tag|>", VLLM_UNPARSED_LLAMA, ["read a.txt", "ls ."], /llama3_json/],
  ["Mistral [TOOL_CALLS]", VLLM_UNPARSED_MISTRAL, ["read a.txt"], /--tool-call-parser mistral/],
  ["a ```json block", OLLAMA_UNPARSED_JSON_BLOCK, ["read a.txt"], /--jinja/],
] as const;

for (const [name, deltas, expected, flag] of MARKUPS) {
  Deno.test(`runAgentLoop() runs ${name} calls written as text as tools and warns once`, async () => {
    await using server = await startFakeOpenAI();
    server.script(reply.deltas([...deltas]), reply.text("It says alpha."));
    const ran: string[] = [];
    const warnings: string[] = [];
    const history: Message[] = [];
    const result = await runAgentLoop({ history, prompt: user("What is in a.txt?") }, {
      model: createOpenAiClient({
        baseURL: server.baseURL,
        apiKey: "sk-test",
        model: "test-model",
        maxRetries: 0,
      }),
      tools: [recordingTool("read", ran), recordingTool("ls", ran)],
      system: "You are a test.",
      clock: systemClock,
      onEvent: (e) => e.type === "model_warning" && warnings.push(e.message),
    });
    assert.equal(result.stopReason, "completed");
    assert.deepEqual([...ran].sort(), [...expected].sort());
    const wire = server.chatRequests[1]?.body?.messages ?? [];
    const calls = wire.find((m) => m.role === "assistant")?.tool_calls ?? [];
    const results = wire.filter((m) => m.role === "tool");
    assert.equal(calls.length, expected.length);
    assert.deepEqual(results.map((m) => m.tool_call_id), calls.map((c) => c.id));
    assert.ok(results.every((m) => String(m.content).includes("alpha")));
    const texts = wire.map((m) => String(m.content ?? ""));
    assert.ok(!texts.some((t) => /<tool_call>|python_tag|\[TOOL_CALLS\]|```json/.test(t)));
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(warnings[0]!, flag);
    assertHistoryAcceptable(history);
  });
}
