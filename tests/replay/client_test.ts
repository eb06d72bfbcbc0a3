import assert from "node:assert/strict";
import { createReplayClient, type ReplayReply } from "../../src/replay/client.ts";
import {
  type AssistantMessage,
  ModelError,
  type ModelRequest,
  type ModelStreamEvent,
} from "../../src/model/types.ts";

const usage = { inputTokens: 120, outputTokens: 30, cachedTokens: 4, totalTokens: 150 };
const request: ModelRequest = { system: "s", messages: [], tools: [] };

const calling: AssistantMessage = {
  role: "assistant",
  blocks: [
    { type: "text", text: "Let me look." },
    { type: "toolCall", id: "call_1", name: "read", arguments: { path: "README.md" } },
    { type: "text", text: "" },
    { type: "toolCall", id: "call_2", name: "bash", arguments: '{"command": "ls"' },
  ],
  stopReason: "toolUse",
  usage,
  model: "gpt-recorded",
};
const answering: AssistantMessage = {
  role: "assistant",
  blocks: [{ type: "text", text: "All done." }],
  stopReason: "stop",
  usage,
  model: "gpt-recorded",
};
const replies: ReplayReply[] = [{ message: calling, line: 3 }, { message: answering, line: 5 }];

Deno.test("createReplayClient() answers the i-th request with the i-th reply and counts them", async () => {
  const client = createReplayClient(replies, { source: "/rec.jsonl", endLine: 5 });
  assert.equal(client.played, 0);
  const first = await client.stream(request, {});
  assert.equal(client.played, 1);
  assert.deepEqual(first?.blocks, calling.blocks);
  const second = await client.stream(request, {});
  assert.equal(client.played, 2);
  assert.deepEqual(second?.blocks, answering.blocks);
});

Deno.test("createReplayClient() streams message_start, text and tool-call events in block order", async () => {
  const client = createReplayClient(replies, { source: "/rec.jsonl", endLine: 5 });
  const events: ModelStreamEvent[] = [];
  await client.stream(request, { onEvent: (e) => events.push(e) });
  assert.deepEqual(events, [
    { type: "message_start" },
    { type: "text_delta", delta: "Let me look." },
    { type: "toolcall_start", index: 0, id: "call_1", name: "read" },
    { type: "toolcall_delta", index: 0, delta: '{"path":"README.md"}' },
    // The empty text block emits nothing; raw (invalid JSON) arguments are streamed as recorded.
    { type: "toolcall_start", index: 1, id: "call_2", name: "bash" },
    { type: "toolcall_delta", index: 1, delta: '{"command": "ls"' },
  ]);
});

Deno.test("createReplayClient() returns a zero-usage copy that keeps model, stop reason and blocks", async () => {
  const recorded = structuredClone(calling);
  const client = createReplayClient([{ message: recorded, line: 3 }], {
    source: "/rec.jsonl",
    endLine: 4,
  });
  const reply = await client.stream(request, {});
  assert.ok(reply !== null);
  assert.deepEqual(reply.usage, {
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    totalTokens: 0,
  });
  assert.equal(reply.model, "gpt-recorded");
  assert.equal(reply.stopReason, "toolUse");
  assert.equal(reply.role, "assistant");
  assert.deepEqual(reply.blocks, calling.blocks);
  // Mutating the live reply (as history does) leaves the recording intact.
  reply.blocks.push({ type: "text", text: "extra" });
  const block = reply.blocks[1];
  assert.ok(block?.type === "toolCall");
  (block.arguments as { path: string }).path = "changed";
  reply.usage.totalTokens = 99;
  assert.deepEqual(recorded, calling);
});

Deno.test("createReplayClient() calls onReply with the reply before any event and before resolving", async () => {
  const log: string[] = [];
  const client = createReplayClient(replies, {
    source: "/rec.jsonl",
    endLine: 5,
    onReply: (reply) => log.push(`reply:${reply.line}:${reply.message.stopReason}`),
  });
  const onEvent = (e: ModelStreamEvent) => log.push(e.type);
  const first = client.stream(request, { onEvent }).then(() => log.push("resolved"));
  // The stream's work is synchronous: the reply was announced before the promise settled.
  assert.equal(log[0], "reply:3:toolUse");
  await first;
  await client.stream(request, { onEvent }).then(() => log.push("resolved"));
  assert.deepEqual(log, [
    "reply:3:toolUse",
    "message_start",
    "text_delta",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_start",
    "toolcall_delta",
    "resolved",
    "reply:5:stop",
    "message_start",
    "text_delta",
    "resolved",
  ]);
});

Deno.test("createReplayClient() resolves null on an aborted signal without consuming a reply", async () => {
  const calls: number[] = [];
  const client = createReplayClient(replies, {
    source: "/rec.jsonl",
    endLine: 5,
    onReply: (r) => calls.push(r.line),
  });
  const controller = new AbortController();
  controller.abort();
  const events: ModelStreamEvent[] = [];
  assert.equal(
    await client.stream(request, { signal: controller.signal, onEvent: (e) => events.push(e) }),
    null,
  );
  assert.equal(client.played, 0);
  assert.deepEqual(calls, []);
  assert.deepEqual(events, []);
  const next = await client.stream(request, {});
  assert.deepEqual(next?.blocks, calling.blocks);
});

Deno.test("createReplayClient() rejects with replay_exhausted naming the file and its last line", async () => {
  const client = createReplayClient([{ message: answering, line: 2 }], {
    source: "/records/tour.jsonl",
    endLine: 7,
  });
  await client.stream(request, {});
  const events: ModelStreamEvent[] = [];
  await assert.rejects(
    client.stream(request, { onEvent: (e) => events.push(e) }),
    (e: unknown) => {
      assert.ok(e instanceof ModelError);
      assert.equal(e.kind, "replay_exhausted");
      assert.match(e.message, /"\/records\/tour\.jsonl" has no model reply left/);
      assert.match(e.message, /ends after line 7/);
      assert.match(e.message, /wants another reply/);
      return true;
    },
  );
  assert.deepEqual(events, []);
  assert.equal(client.played, 1);
});

Deno.test("createReplayClient() with no replies at all rejects the first request", async () => {
  const client = createReplayClient([], { source: "r.jsonl", endLine: 2 });
  await assert.rejects(client.stream(request, {}), (e: unknown) => {
    assert.ok(e instanceof ModelError && e.kind === "replay_exhausted");
    assert.match(e.message, /"r\.jsonl".*line 2.*wants another reply/s);
    return true;
  });
});
