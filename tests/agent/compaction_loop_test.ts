/** Context compaction in the agent loop, through the real `openai` SDK and the fake server. */
import assert from "node:assert/strict";
import { runAgentLoop } from "../../src/agent/mod.ts";
import type { AgentOptions } from "../../src/agent/types.ts";
import { type ContextState, createContextState } from "../../src/agent/compaction/keeper.ts";
import { isSummaryMessage, SUMMARY_INSTRUCTIONS } from "../../src/agent/compaction/summary.ts";
import { createOpenAiClient } from "../../src/model/openai/mod.ts";
import { type Message, ModelError } from "../../src/model/types.ts";
import { repairHistory } from "../../src/session/store.ts";
import {
  type FakeChatBody,
  type FakeOpenAIServer,
  fakePromptTokens,
  fault,
  type OverflowStyle,
  type RecordedRequest,
  repeat,
  reply,
  startFakeOpenAI,
} from "../support/fake_openai.ts";
import { assertHistoryAcceptable } from "../support/history_check.ts";
import { createManualClock } from "../support/manual_clock.ts";
import { scripted, ScriptedModelClient } from "../support/scripted_model.ts";
import { dumpTool, eventLog, user } from "./_helpers.ts";
import { codeText, readingHistory } from "./compaction/_fixtures.ts";

const PROMPT = "Read all parts of the dump and tell me what the code computes.";
const SUMMARY = '## User requests\n"Read all parts of the dump"\n## Next step\nRead the next part.';

const isSummaryRequest = (r: RecordedRequest) => r.body?.tools === undefined;

/**
 * The fake model: reads parts 1…`parts` one per turn, then answers; a request without tools (a
 * summary request) gets `summary` (a step of its own when given).
 */
function scriptAgent(
  server: FakeOpenAIServer,
  parts: number,
  summary: (r: RecordedRequest) => ReturnType<typeof reply.text> | ReturnType<typeof fault.stall> =
    () => reply.text(SUMMARY),
): void {
  let part = 0;
  server.script(repeat((request) => {
    if (isSummaryRequest(request)) return summary(request);
    part++;
    return part <= parts
      ? reply.toolCalls([{ id: `call_${part}`, name: "dump", arguments: { part } }])
      : reply.text("It computes values, step by step.");
  }));
}

function options(server: FakeOpenAIServer, extra: Partial<AgentOptions>): AgentOptions {
  return {
    model: createOpenAiClient({
      baseURL: server.baseURL,
      apiKey: "sk-test",
      model: "fake-model",
      maxRetries: 0,
    }),
    tools: [dumpTool(6000, { prunedHint: true })],
    system: "You are a test.",
    clock: createManualClock(),
    ...extra,
  };
}

function userTexts(request: RecordedRequest | undefined): string[] {
  return (request?.body?.messages ?? []).filter((m) => m.role === "user").map((m) =>
    String(m.content)
  );
}

Deno.test("runAgentLoop() with a known window prunes many large results and never overflows", async () => {
  await using server = await startFakeOpenAI({ contextWindow: 8000 });
  scriptAgent(server, 12);
  const history: Message[] = [];
  const log = eventLog();
  const result = await runAgentLoop(
    { history, prompt: user(PROMPT) },
    options(server, {
      context: createContextState({ window: 8000, source: "flag" }),
      onEvent: log.onEvent,
    }),
  );

  assert.equal(result.stopReason, "completed");
  assert.equal(server.overflows, 0);
  assert.equal(server.chatRequests.length, 13);
  assert.equal(result.turns, 13);
  for (const request of server.chatRequests) {
    assert.ok(fakePromptTokens(request.body as FakeChatBody) <= 8000);
  }
  // The task is still in the last request; old parts are stubs with the tool's hint.
  const last = server.chatRequests.at(-1);
  assert.deepEqual(userTexts(last), [PROMPT]);
  const tools = (last?.body?.messages ?? []).filter((m) => m.role === "tool").map((m) =>
    String(m.content)
  );
  assert.equal(tools.length, 12);
  assert.match(
    tools[0] ?? "",
    /^\[Result removed .*dump\(\{"part":1\}\).*Call dump with part 1 again for it\.\]$/,
  );
  assert.equal(tools.at(-1), codeText(6000, "p12"));
  assert.ok(log.of("compaction_end").length >= 1);
  assert.ok(
    log.of("compaction_end").every((e) => e.outcome === "compacted" && e.method === "prune"),
  );
  assert.equal(server.chatRequests.filter(isSummaryRequest).length, 0);
  assertHistoryAcceptable(history);
  assert.equal(repairHistory(history).changes, 0);
});

Deno.test("runAgentLoop() compacts on the prompt tokens the server reported, not only on its estimate", async () => {
  await using server = await startFakeOpenAI({ contextWindow: 8000 });
  let part = 0;
  server.script(repeat((request) => {
    if (isSummaryRequest(request)) return reply.text(SUMMARY);
    part++;
    if (part > 2) return reply.text("Done.");
    // The second reply reports far more prompt tokens than the estimate of what was sent.
    return reply.toolCalls([{ id: `call_${part}`, name: "dump", arguments: { part } }], {
      ...(part === 2 ? { usage: { prompt_tokens: 6000 } } : {}),
    });
  }));
  const history: Message[] = [];
  const log = eventLog();
  const result = await runAgentLoop(
    { history, prompt: user(PROMPT) },
    options(server, {
      context: createContextState({ window: 8000, source: "flag" }),
      onEvent: log.onEvent,
    }),
  );

  assert.equal(result.stopReason, "completed");
  // Without the reported count, the next request (two 6 KB results) would have looked small.
  assert.ok(fakePromptTokens(server.chatRequests[1]?.body as FakeChatBody) < 3000);
  const start = log.of("compaction_start")[0];
  assert.equal(start?.reason, "threshold");
  assert.ok((start?.tokens ?? 0) > 6000, `${start?.tokens} tokens`);
  assert.equal(log.of("compaction_end")[0]?.outcome, "compacted");
  assert.equal(server.overflows, 0);
  assertHistoryAcceptable(history);
});

const STYLES: OverflowStyle[] = ["openai", "vllm", "llamacpp", "ollama", "plain"];

for (const style of STYLES) {
  Deno.test(`runAgentLoop() with an unknown window recovers from a ${style} overflow error`, async () => {
    await using server = await startFakeOpenAI({ contextWindow: 8000, overflowStyle: style });
    scriptAgent(server, 20);
    const history: Message[] = [];
    const state: ContextState = createContextState();
    const log = eventLog();
    const result = await runAgentLoop(
      { history, prompt: user(PROMPT) },
      options(server, {
        context: state,
        onEvent: log.onEvent,
      }),
    );

    assert.equal(result.stopReason, "completed");
    assert.ok(server.overflows >= 1);
    assert.ok(log.of("compaction_end").some((e) => e.reason === "overflow"));
    assert.equal(state.source, style === "plain" ? "guess" : "error");
    if (style === "openai" || style === "vllm" || style === "llamacpp") {
      assert.equal(state.window, 8000);
    } else {
      // Learned in the estimate's units: below what the overflowing request was estimated at.
      assert.ok(state.window !== undefined && state.window > 256);
    }
    // Once something is learned, later requests are compacted before they are sent.
    assert.equal(server.overflows, 1);
    assert.equal(server.chatRequests.length, 22);
    assert.deepEqual(userTexts(server.chatRequests.at(-1)), [PROMPT]);
    // Overflowed requests are not turns; every other request is.
    assert.equal(result.turns, server.chatRequests.length - server.overflows);
    assertHistoryAcceptable(history);
  });
}

Deno.test("runAgentLoop() summarises when pruning is not enough; summary requests are requests, not turns", async () => {
  await using server = await startFakeOpenAI({ contextWindow: 4000 });
  // Results under 600 characters are never pruned: only a summary frees room.
  scriptAgent(server, 30);
  const history: Message[] = [];
  const log = eventLog();
  const result = await runAgentLoop(
    { history, prompt: user(PROMPT) },
    options(server, {
      tools: [dumpTool(500, { prunedHint: true })],
      context: createContextState({ window: 4000, source: "config" }),
      onEvent: log.onEvent,
    }),
  );

  assert.equal(result.stopReason, "completed");
  assert.equal(server.overflows, 0);
  const summaries = server.chatRequests.filter(isSummaryRequest);
  assert.ok(summaries.length >= 1);
  for (const request of summaries) {
    assert.equal(request.body?.tools, undefined);
    assert.equal(request.body?.messages[0]?.content, SUMMARY_INSTRUCTIONS);
    assert.match(userTexts(request)[0] ?? "", /^Summarise this conversation/);
  }
  // Summary requests are not turns (what --max-turns counts), but their usage is the run's.
  assert.equal(result.turns, 31);
  assert.equal(result.turns, server.chatRequests.length - summaries.length);
  const prompted = server.chatRequests.reduce(
    (n, r) => n + fakePromptTokens(r.body as FakeChatBody),
    0,
  );
  assert.equal(result.usage.inputTokens, prompted);
  const ends = log.of("compaction_end").filter((e) => e.method === "summary");
  assert.equal(ends.reduce((n, e) => n + e.modelCalls, 0), summaries.length);
  // After a summary the request holds the task verbatim, then the summary.
  const afterFirst = server.chatRequests[server.chatRequests.indexOf(summaries[0]!) + 1];
  const texts = userTexts(afterFirst);
  assert.equal(texts[0], PROMPT);
  assert.match(texts[1] ?? "", /^The earlier conversation was compacted[^]*Read the next part\.$/);
  assert.deepEqual(userTexts(server.chatRequests.at(-1)).slice(0, 1), [PROMPT]);
  assert.ok(history.some(isSummaryMessage));
  assertHistoryAcceptable(history);
  assert.equal(repairHistory(history).changes, 0);
});

Deno.test("runAgentLoop() aborted during a summary request stops with aborted and a valid history", async () => {
  await using server = await startFakeOpenAI({ contextWindow: 4000 });
  const controller = new AbortController();
  const arrived = Promise.withResolvers<void>();
  scriptAgent(server, 30, () => {
    arrived.resolve();
    return fault.stall(reply.text("## Done\nPart of a summary"), { afterChunks: 2 });
  });
  const history: Message[] = [];
  const log = eventLog();
  const run = runAgentLoop(
    { history, prompt: user(PROMPT) },
    options(server, {
      tools: [dumpTool(500, { prunedHint: true })],
      context: createContextState({ window: 4000, source: "flag" }),
      onEvent: log.onEvent,
      signal: controller.signal,
    }),
  );
  await arrived.promise;
  controller.abort();
  const result = await run;
  await server.waitForStreamsClosed();

  assert.equal(result.stopReason, "aborted");
  assert.equal(server.chatRequests.filter(isSummaryRequest).length, 1);
  // Every request but the (aborted) summary request was a turn.
  assert.equal(result.turns, server.chatRequests.length - 1);
  assert.equal(log.of("compaction_end").at(-1)?.outcome, "aborted");
  assert.ok(!history.some(isSummaryMessage));
  assert.equal(history.at(-1)?.role, "toolResult");
  assertHistoryAcceptable(history);
  assert.equal(repairHistory(history).changes, 0);
});

for (const known of [true, false]) {
  Deno.test(`runAgentLoop() ends with contextExhausted when the prompt alone overflows (${known ? "known" : "unknown"} window)`, async () => {
    await using server = await startFakeOpenAI({ contextWindow: 2000 });
    scriptAgent(server, 1);
    const history: Message[] = [];
    const log = eventLog();
    const result = await runAgentLoop(
      { history, prompt: user("x".repeat(12_000)) },
      options(server, {
        context: known
          ? createContextState({ window: 2000, source: "flag" })
          : createContextState(),
        onEvent: log.onEvent,
      }),
    );

    assert.equal(result.stopReason, "contextExhausted");
    assert.match(
      result.exhausted ?? "",
      /^The model server reported the conversation too long: .*This model's maximum context length is 2000 tokens\..* The conversation does not fit the model's context window of 2,000 tokens/,
    );
    assert.equal(server.overflows, 1);
    assert.equal(server.chatRequests.length, 1);
    assert.equal(result.turns, 0);
    assert.equal(history.length, 1);
    assert.equal(log.of("compaction_end").at(-1)?.outcome, "exhausted");
    assert.equal(log.of("agent_end")[0]?.result.stopReason, "contextExhausted");
  });
}

Deno.test("runAgentLoop() gives up after two compactions the server still finds too long", async () => {
  const requests: number[] = [];
  const model = new ScriptedModelClient(Array.from({ length: 10 }, () => (request) => {
    if (request.tools.length === 0) return scripted.text(SUMMARY);
    requests.push(request.messages.length);
    return scripted.fail(
      new ModelError("context_overflow", "the input length exceeds the context length", {
        status: 400,
        overflow: {},
      }),
    );
  }));
  const history: Message[] = readingHistory(8, 3000);
  const result = await runAgentLoop({ history, prompt: user("go on") }, {
    model,
    tools: [dumpTool(6000, { prunedHint: true })],
    system: "You are a test.",
    clock: createManualClock(),
    context: createContextState(),
  });
  assert.equal(result.stopReason, "contextExhausted");
  assert.equal(requests.length, 3);
  assert.equal(
    result.exhausted,
    "The model server still reported the conversation too long after compacting it twice: " +
      "the input length exceeds the context length",
  );
  // Only the summary request of a compaction was answered: no turn was.
  assert.equal(result.turns, 0);
  assert.equal(model.requests.filter((r) => r.tools.length === 0).length, 1);
  assertHistoryAcceptable(history);
  assert.equal(history.at(-1)?.role, "user");
});

Deno.test("runAgentLoop() without context rejects with the overflow ModelError and never compacts", async () => {
  await using server = await startFakeOpenAI({ contextWindow: 1000 });
  scriptAgent(server, 1);
  const history: Message[] = [];
  const log = eventLog();
  await assert.rejects(
    runAgentLoop(
      { history, prompt: user("x".repeat(8000)) },
      options(server, { onEvent: log.onEvent }),
    ),
    (e) => e instanceof ModelError && e.kind === "context_overflow" && e.overflow?.window === 1000,
  );
  assert.equal(server.overflows, 1);
  assert.equal(server.chatRequests.length, 1);
  assert.equal(history.length, 1);
  assert.equal(log.of("compaction_start").length, 0);
});
