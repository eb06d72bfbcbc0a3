/** The agent loop through the real `openai` SDK adapter and the fake OpenAI server. */
import assert from "node:assert/strict";
import { systemClock } from "../../src/sys/clock.ts";
import { Type } from "@sinclair/typebox";
import { runAgentLoop } from "../../src/agent/mod.ts";
import { createOpenAiClient } from "../../src/model/openai/mod.ts";
import { type Message, ModelError, type ToolResultMessage } from "../../src/model/types.ts";
import type { Tool } from "../../src/agent/tool.ts";
import { fault, reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { assertHistoryAcceptable } from "../support/history_check.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { eventLog, user } from "./_helpers.ts";

const README = "# moat\nA coding agent whose tools touch only what you granted.\n";

const ReadParams = Type.Object({ path: Type.String({ description: "File to read" }) });

/** A tiny real-file read tool for these tests (not src/tools/read.ts). */
function fileReadTool(cwd: string): Tool<typeof ReadParams> {
  return {
    name: "read",
    description: "Reads a text file relative to the workspace.",
    parameters: ReadParams,
    kind: "read",
    concurrencySafe: true,
    async execute(args) {
      try {
        return { output: await Deno.readTextFile(`${cwd}/${args.path}`) };
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) {
          return { output: `File "${args.path}" not found.`, isError: true };
        }
        throw e;
      }
    },
  };
}

function client(baseURL: string, maxRetries = 2) {
  return createOpenAiClient({ baseURL, apiKey: "sk-test", model: "fake-model", maxRetries });
}

Deno.test("runAgentLoop() over the fake server reads the README in 2 model calls and 4 messages", async () => {
  await using ws = await createTempWorkspace({ "README.md": README });
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([{ id: "call_1", name: "read", arguments: { path: "README.md" } }], {
      argChunks: 4,
    }),
    reply.text("moat is a coding agent that only touches what you granted."),
  );
  const history: Message[] = [];
  const log = eventLog();
  const result = await runAgentLoop({ history, prompt: user("What is in the README?") }, {
    model: client(server.baseURL),
    tools: [fileReadTool(ws.dir)],
    system: "You are a test.",
    clock: systemClock,
    onEvent: log.onEvent,
  });

  assert.equal(result.stopReason, "completed");
  assert.equal(result.turns, 2);
  assert.ok(result.usage.totalTokens > 0);
  assert.equal(server.chatRequests.length, 2);
  assert.deepEqual(history.map((m) => m.role), ["user", "assistant", "toolResult", "assistant"]);
  assert.deepEqual((history[2] as ToolResultMessage).results, [
    { toolCallId: "call_1", toolName: "read", content: README, isError: false },
  ]);
  const wire = server.chatRequests[1]?.body?.messages ?? [];
  assert.deepEqual(wire.map((m) => m.role), ["system", "user", "assistant", "tool"]);
  assert.equal(wire[3]?.tool_call_id, "call_1");
  assert.equal(wire[3]?.content, README);
  assert.equal(
    log.of("text_delta").map((e) => e.delta).join(""),
    "moat is a coding agent that only touches what you granted.",
  );
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() over the fake server answers invalid JSON arguments with an error result", async () => {
  await using ws = await createTempWorkspace({ "README.md": README });
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([{ id: "call_bad", name: "read", arguments: '{"path": "READ' }]),
    reply.text("Sorry."),
  );
  const history: Message[] = [];
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    model: client(server.baseURL),
    tools: [fileReadTool(ws.dir)],
    system: "",
    clock: systemClock,
  });
  assert.equal(result.stopReason, "completed");
  assert.equal(server.chatRequests.length, 2);
  const [res] = (history[2] as ToolResultMessage).results;
  assert.equal(res?.isError, true);
  assert.match(String(res?.content), /^Error: tool "read" arguments are not valid JSON: /);
  assert.match(String(res?.content), /\{\\"path\\": \\"READ/);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() over the fake server rejects on a mid-stream disconnect, keeping no partial reply", async () => {
  await using ws = await createTempWorkspace({ "README.md": README });
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([{ id: "call_1", name: "read", arguments: { path: "README.md" } }]),
    fault.disconnect(reply.text("This answer will be cut off halfway"), { afterChunks: 3 }),
  );
  const history: Message[] = [];
  const log = eventLog();
  await assert.rejects(
    runAgentLoop({ history, prompt: user("go") }, {
      model: client(server.baseURL),
      tools: [fileReadTool(ws.dir)],
      system: "",
      clock: systemClock,
      onEvent: log.onEvent,
    }),
    (e) => e instanceof ModelError,
  );
  assert.ok(log.of("text_delta").length > 0, "part of the reply had streamed");
  assert.deepEqual(history.map((m) => m.role), ["user", "assistant", "toolResult"]);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() over the fake server rejects with the HTTP 500 after the SDK's retries", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    fault.status(500, { retryAfter: 0 }),
    fault.status(500, { retryAfter: 0 }),
  );
  const history: Message[] = [];
  await assert.rejects(
    runAgentLoop({ history, prompt: user("go") }, {
      model: client(server.baseURL, 1),
      tools: [],
      system: "",
      clock: systemClock,
    }),
    (e) => e instanceof ModelError && e.kind === "server" && e.status === 500,
  );
  assert.equal(server.chatRequests.length, 2, "one try and one retry");
  assert.deepEqual(history, [user("go")]);
  assertHistoryAcceptable(history);
});

Deno.test("runAgentLoop() over the fake server returns aborted when aborted mid-stream", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.stall(reply.text("A long answer that never finishes"), { afterChunks: 3 }));
  const controller = new AbortController();
  const history: Message[] = [];
  const log = eventLog();
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    model: client(server.baseURL),
    tools: [],
    system: "",
    clock: systemClock,
    signal: controller.signal,
    onEvent: (e) => {
      log.onEvent(e);
      if (e.type === "text_delta") controller.abort();
    },
  });
  assert.equal(result.stopReason, "aborted");
  assert.equal(result.turns, 0);
  assert.equal(server.chatRequests.length, 1);
  assert.deepEqual(history, [user("go")]);
  assert.equal(log.of("message_end").length, 0);
  assertHistoryAcceptable(history);
});
