/**
 * Servers with strict chat templates (llama.cpp's GGUF templates, Mistral/Devstral) through the
 * agent loop, the real SDK and a fake server that answers 500 like llama.cpp whenever the roles
 * do not alternate (tests/support/strict_template.ts): after a failed turn, after a turn whose
 * tools ran but whose reply broke off, after a compaction, and with ids from another server.
 */
import assert from "node:assert/strict";
import { runAgentLoop } from "../../src/agent/mod.ts";
import { createContextState } from "../../src/agent/compaction/keeper.ts";
import { isSummaryMessage } from "../../src/agent/compaction/summary.ts";
import { createOpenAiClient } from "../../src/model/openai/mod.ts";
import type { ProfileName } from "../../src/model/profiles/mod.ts";
import { type Message, ModelError } from "../../src/model/types.ts";
import { systemClock } from "../../src/sys/clock.ts";
import {
  type FakeOpenAIServer,
  fault,
  type RecordedRequest,
  repeat,
  reply,
  startFakeOpenAI,
} from "../support/fake_openai.ts";
import { assertHistoryAcceptable } from "../support/history_check.ts";
import { strictTemplate } from "../support/strict_template.ts";
import { dumpTool, user } from "./_helpers.ts";

function run(
  server: FakeOpenAIServer,
  provider: ProfileName,
  history: Message[],
  prompt: string,
  extra: {
    chars?: number;
    window?: number;
    signal?: AbortSignal;
    tool?: ReturnType<typeof dumpTool>;
  } = {},
) {
  return runAgentLoop({ history, prompt: user(prompt) }, {
    model: createOpenAiClient({
      baseURL: server.baseURL,
      apiKey: "sk-test",
      model: "test-model",
      maxRetries: 0,
      provider,
    }),
    tools: [extra.tool ?? dumpTool(extra.chars ?? 40)],
    system: "You are a test.",
    clock: systemClock,
    ...(extra.signal === undefined ? {} : { signal: extra.signal }),
    ...(extra.window === undefined
      ? {}
      : { context: createContextState({ window: extra.window, source: "config" }) }),
  });
}

const roles = (r: RecordedRequest | undefined) => (r?.body?.messages ?? []).map((m) => m.role);

for (const provider of ["llamacpp", "mistral"] as const) {
  const ids = { alnum9Ids: provider === "mistral" };

  Deno.test(`${provider}: the prompt after a turn that failed at once keeps the roles alternating`, async () => {
    await using server = await startFakeOpenAI();
    const seen: string[][] = [];
    server.script(
      fault.status(500, { message: "Compute error." }),
      strictTemplate(() => reply.text("Back."), { ...ids, seen }),
    );
    const history: Message[] = [];
    await assert.rejects(run(server, provider, history, "First."), ModelError);
    const result = await run(server, provider, history, "Second.");
    assert.equal(result.stopReason, "completed", seen.flat().join("; "));
    assert.deepEqual(roles(server.chatRequests[1]), ["system", "user"]);
    assert.equal(server.chatRequests[1]?.body?.messages[1]?.content, "First.\n\nSecond.");
    assertHistoryAcceptable(history);
  });

  Deno.test(`${provider}: the prompt after tools ran and the reply broke off keeps the roles alternating`, async () => {
    await using server = await startFakeOpenAI();
    const seen: string[][] = [];
    server.script(
      reply.toolCalls([{ id: "call_a", name: "dump", arguments: { part: 1 } }]),
      fault.disconnect(reply.text("Part 1 is"), { afterChunks: 1 }),
      strictTemplate(() => reply.text("Back."), { ...ids, seen }),
    );
    const history: Message[] = [];
    await assert.rejects(run(server, provider, history, "First."), ModelError);
    assert.deepEqual(history.map((m) => m.role), ["user", "assistant", "toolResult"]);
    const result = await run(server, provider, history, "Go on.");
    assert.equal(result.stopReason, "completed", seen.flat().join("; "));
    assert.deepEqual(seen, [[]]);
    const sent = roles(server.chatRequests[2]);
    assert.deepEqual(sent.slice(0, 4), ["system", "user", "assistant", "tool"]);
    assert.equal(sent.at(-1), "user");
    assertHistoryAcceptable(history);
  });

  Deno.test(`${provider}: the prompt after a turn interrupted during a tool keeps the roles alternating`, async () => {
    await using server = await startFakeOpenAI();
    const seen: string[][] = [];
    server.script(
      reply.toolCalls([{ id: "call_a", name: "dump", arguments: { part: 1 } }]),
      strictTemplate(() => reply.text("Back."), { ...ids, seen }),
    );
    const controller = new AbortController();
    // The user interrupts (Ctrl-C) while the tool runs; the tool ends at once, as bash does.
    const waiting: ReturnType<typeof dumpTool> = {
      ...dumpTool(40),
      execute: () => {
        controller.abort();
        return Promise.resolve({ output: "interrupted", isError: true });
      },
    };
    const history: Message[] = [];
    const first = await run(server, provider, history, "First.", {
      signal: controller.signal,
      tool: waiting,
    });
    assert.equal(first.stopReason, "aborted");
    assert.equal(history.at(-1)?.role, "toolResult");
    const result = await run(server, provider, history, "Do something else.");
    assert.equal(result.stopReason, "completed", seen.flat().join("; "));
    assert.deepEqual(seen, [[]]);
    assertHistoryAcceptable(history);
  });

  Deno.test(`${provider}: the prompt after a reply interrupted mid-stream keeps the roles alternating`, async () => {
    await using server = await startFakeOpenAI();
    const seen: string[][] = [];
    server.script(
      fault.stall(reply.text("A long answer that never finishes"), { afterChunks: 2 }),
      strictTemplate(() => reply.text("Back."), { ...ids, seen }),
    );
    const controller = new AbortController();
    const history: Message[] = [];
    const first = runAgentLoop({ history, prompt: user("First.") }, {
      model: createOpenAiClient({
        baseURL: server.baseURL,
        apiKey: "sk-test",
        model: "test-model",
        maxRetries: 0,
        provider,
      }),
      tools: [dumpTool(40)],
      system: "You are a test.",
      clock: systemClock,
      signal: controller.signal,
      onEvent: (e) => e.type === "text_delta" && controller.abort(),
    });
    assert.equal((await first).stopReason, "aborted");
    const result = await run(server, provider, history, "Second.");
    assert.equal(result.stopReason, "completed", seen.flat().join("; "));
    assert.deepEqual(seen, [[]]);
    assertHistoryAcceptable(history);
  });

  Deno.test(`${provider}: every request of a run that compacts by summary renders under a strict template`, async () => {
    await using server = await startFakeOpenAI({ contextWindow: 4000 });
    const seen: string[][] = [];
    let part = 0;
    server.script(repeat(strictTemplate((request) => {
      if (request.body?.tools === undefined) {
        return reply.text('## User requests\n"Read all parts"\n## Next step\nRead on.');
      }
      part++;
      return part <= 20
        ? reply.toolCalls([{ id: `call_${part}`, name: "dump", arguments: { part } }])
        : reply.text("It computes values.");
    }, { ...ids, seen })));
    const history: Message[] = [];
    const result = await run(server, provider, history, "Read all parts of the dump.", {
      chars: 500,
      window: 4000,
    });
    assert.equal(result.stopReason, "completed", seen.flat().join("; "));
    assert.ok(history.some(isSummaryMessage), "the run compacted");
    assert.deepEqual(seen.filter((p) => p.length > 0), []);
    // And the next prompt, after the summary note, as well.
    server.script(strictTemplate(() => reply.text("Done."), { ...ids, seen }));
    const next = await run(server, provider, history, "Now count them.", {
      chars: 500,
      window: 4000,
    });
    assert.equal(next.stopReason, "completed", seen.flat().join("; "));
    assertHistoryAcceptable(history);
  });
}

Deno.test("mistral: a resumed session with another server's call ids sends 9-alphanumeric ids in both places", async () => {
  await using server = await startFakeOpenAI();
  const seen: string[][] = [];
  server.script(strictTemplate(() => reply.text("Done."), { alnum9Ids: true, seen }));
  const usage = { inputTokens: 1, outputTokens: 1, cachedTokens: 0, totalTokens: 2 };
  const history: Message[] = [
    { role: "user", content: "Dump parts 1 and 2." },
    {
      role: "assistant",
      blocks: [
        { type: "toolCall", id: "call_abc123def456", name: "dump", arguments: { part: 1 } },
        { type: "toolCall", id: "call_abc123def789", name: "dump", arguments: { part: 2 } },
      ],
      stopReason: "toolUse",
      usage,
    },
    {
      role: "toolResult",
      results: [
        { toolCallId: "call_abc123def456", toolName: "dump", content: "one", isError: false },
        { toolCallId: "call_abc123def789", toolName: "dump", content: "two", isError: false },
      ],
    },
    {
      role: "assistant",
      blocks: [{ type: "text", text: "Both read." }],
      stopReason: "stop",
      usage,
    },
  ];
  const result = await run(server, "mistral", history, "Again.");
  assert.equal(result.stopReason, "completed", seen.flat().join("; "));
  const wire = server.chatRequests[0]?.body?.messages ?? [];
  const callIds = wire[2]?.tool_calls?.map((c) => c.id) ?? [];
  assert.equal(new Set(callIds).size, 2);
  assert.deepEqual(wire.slice(3, 5).map((m) => m.tool_call_id), callIds);
  // The session keeps the original ids: only the request is reshaped.
  assert.equal(
    history[2]?.role === "toolResult" && history[2].results[0]?.toolCallId,
    "call_abc123def456",
  );
});
