import assert from "node:assert/strict";
import {
  createRelocation,
  type ExchangeEnd,
  type ReplayExchange,
  replayRecording,
} from "../../src/replay/play.ts";
import {
  type AssistantMessage,
  type Message,
  ModelError,
  type ToolResultMessage,
} from "../../src/model/types.ts";
import { parseRecording, type Recording } from "../../src/replay/recording.ts";
import { sessionHeader, sessionText } from "../support/sessions.ts";

const PATH = "/rec/tour.jsonl";
const usage = { inputTokens: 10, outputTokens: 5, cachedTokens: 0, totalTokens: 15 };

const user = (content: string): Message => ({ role: "user", content });
const answer = (text: string): Message => ({
  role: "assistant",
  blocks: [{ type: "text", text }],
  stopReason: "stop",
  usage,
});
const calling = (id: string): Message => ({
  role: "assistant",
  blocks: [{ type: "toolCall", id, name: "ls", arguments: { path: "." } }],
  stopReason: "toolUse",
  usage,
});
const results = (id: string): ToolResultMessage => ({
  role: "toolResult",
  results: [{ toolCallId: id, toolName: "ls", content: "README.md", isError: false }],
});

/** A parsed recording: line 1 is the header, message i is on line i + 2. */
function recordingOf(...messages: Message[]): Recording {
  const text = sessionText(messages, sessionHeader({ model: "recorded-model" }));
  const parsed = parseRecording(PATH, text);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
  return parsed.recording;
}

/** What one fake run saw and how it ended. */
interface Outcome {
  prompt: string;
  earlier: string[];
  replies: number;
  end: ExchangeEnd;
}

const textOf = (m: { content: unknown }) => typeof m.content === "string" ? m.content : "?";

/**
 * Plays an exchange like the agent loop: asks for replies until one makes no tool call, the
 * replies run out ("exhausted"), or `limit` replies were taken ("completed" early).
 */
async function drive(exchange: ReplayExchange, limit = Infinity): Promise<Outcome> {
  const base = { prompt: textOf(exchange.prompt), earlier: exchange.earlier.map(textOf) };
  let taken = 0;
  while (taken < limit) {
    let reply: AssistantMessage | null;
    try {
      reply = await exchange.model.stream({ system: "", messages: [], tools: [] }, {});
    } catch (e) {
      if (e instanceof ModelError && e.kind === "replay_exhausted") {
        return { ...base, replies: taken, end: "exhausted" };
      }
      throw e;
    }
    taken++;
    if (reply === null || !reply.blocks.some((b) => b.type === "toolCall")) break;
  }
  return { ...base, replies: taken, end: "completed" };
}

/** Runs replayRecording with fake runs; `plan` may override how the i-th run behaves. */
async function replay(
  recording: Recording,
  options: {
    prompt?: string;
    plan?: (i: number, exchange: ReplayExchange) => Promise<Outcome>;
  } = {},
) {
  const runs: Outcome[] = [];
  const warnings: string[] = [];
  const replyLines: number[] = [];
  const last = await replayRecording<Outcome>(recording, {
    ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
    onReply: (reply) => replyLines.push(reply.line),
    warn: (message) => warnings.push(message),
    run: async (exchange) => {
      const outcome = await (options.plan?.(runs.length, exchange) ?? drive(exchange));
      runs.push(outcome);
      return outcome;
    },
    classify: (outcome) => outcome.end,
  });
  return { last, runs, warnings, replyLines };
}

Deno.test("replayRecording() runs each exchange with its own replies and resolves to the last outcome", async () => {
  const recording = recordingOf(
    user("q1"), // line 2
    calling("c1"), // 3
    results("c1"), // 4
    answer("first answer"), // 5
    user("q2"), // 6
    user("q3"), // 7
    answer("second answer"), // 8
  );
  const { last, runs, warnings, replyLines } = await replay(recording);
  assert.deepEqual(runs, [
    { prompt: "q1", earlier: [], replies: 2, end: "completed" },
    // Consecutive recorded user messages: the earlier ones are saved, the last one starts the run.
    { prompt: "q3", earlier: ["q2"], replies: 1, end: "completed" },
  ]);
  assert.equal(last, runs[1]);
  assert.deepEqual(warnings, []);
  assert.deepEqual(replyLines, [3, 5, 8]);
});

Deno.test("replayRecording() hands each exchange a model that plays exactly the recorded replies", async () => {
  const recording = recordingOf(
    user("q1"),
    calling("c1"),
    results("c1"),
    answer("first answer"),
    user("q2"),
    answer("second answer"),
  );
  const texts: string[] = [];
  await replay(recording, {
    plan: async (_i, exchange) => {
      for (;;) {
        const reply = await exchange.model.stream({ system: "", messages: [], tools: [] }, {});
        assert.ok(reply !== null);
        assert.equal(reply.usage.totalTokens, 0);
        const block = reply.blocks[0];
        texts.push(block?.type === "text" ? block.text : `call ${block?.id}`);
        if (reply.stopReason === "stop") break;
      }
      return { prompt: textOf(exchange.prompt), earlier: [], replies: 0, end: "completed" };
    },
  });
  assert.deepEqual(texts, ["call c1", "first answer", "second answer"]);
});

Deno.test("replayRecording() replaces only the first recorded user message with the prompt", async () => {
  const single = recordingOf(user("q1"), answer("a1"), user("q2"), answer("a2"));
  const { runs } = await replay(single, { prompt: "my own question" });
  assert.deepEqual(runs.map((r) => [r.earlier, r.prompt]), [
    [[], "my own question"],
    [[], "q2"],
  ]);

  // When the first exchange holds several user messages, the first one (an `earlier`) is replaced.
  const queued = recordingOf(user("q1"), user("q1b"), answer("a1"), user("q2"), answer("a2"));
  const second = await replay(queued, { prompt: "mine" });
  assert.deepEqual(second.runs.map((r) => [r.earlier, r.prompt]), [
    [["mine"], "q1b"],
    [[], "q2"],
  ]);
});

Deno.test("replayRecording() leaves the recording's messages untouched when a prompt replaces one", async () => {
  const recording = recordingOf(user("q1"), answer("a1"));
  const before = structuredClone(recording);
  await replay(recording, { prompt: "mine" });
  assert.deepEqual(recording, before);
});

Deno.test("replayRecording() warns and goes on when an exchange that is not the last runs out of replies", async () => {
  const recording = recordingOf(
    user("q1"), // 2
    calling("c1"), // 3
    results("c1"), // 4: the recorded run stopped here (interrupted)
    user("q2"), // 5
    answer("a2"), // 6
  );
  const { last, runs, warnings, replyLines } = await replay(recording);
  assert.deepEqual(runs.map((r) => [r.prompt, r.end]), [["q1", "exhausted"], ["q2", "completed"]]);
  assert.equal(last.end, "completed");
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0] ?? "",
    /^The recorded run ended after line 4 without a final reply, so this run stops there too; the replay goes on with the user message on line 5$/,
  );
  assert.deepEqual(replyLines, [3, 6]);
});

Deno.test("replayRecording() resolves to the exhausted outcome of the last exchange and runs nothing more", async () => {
  const recording = recordingOf(
    user("q1"),
    answer("a1"),
    user("q2"),
    calling("c2"), // 5
    results("c2"), // 6
  );
  const { last, runs, warnings } = await replay(recording);
  assert.equal(runs.length, 2);
  assert.equal(last, runs[1]);
  assert.equal(last.end, "exhausted");
  assert.equal(last.replies, 1);
  assert.deepEqual(warnings, []);
});

Deno.test("replayRecording() ends at once when a run is stopped, with no warning about unplayed replies", async () => {
  const recording = recordingOf(
    user("q1"),
    calling("c1"),
    results("c1"),
    answer("a1"),
    user("q2"),
    answer("a2"),
  );
  const { last, runs, warnings, replyLines } = await replay(recording, {
    plan: async (_i, exchange) => ({ ...(await drive(exchange, 1)), end: "stopped" }),
  });
  assert.equal(runs.length, 1);
  assert.equal(last.end, "stopped");
  assert.deepEqual(warnings, []);
  assert.deepEqual(replyLines, [3]);
});

Deno.test("replayRecording() warns with the line of the first unplayed reply when a run finishes early", async () => {
  const recording = recordingOf(
    user("q1"), // 2
    calling("c1"), // 3
    results("c1"), // 4
    calling("c2"), // 5
    results("c2"), // 6
    answer("a1"), // 7
    user("q2"), // 8
    answer("a2"), // 9
  );
  const { runs, warnings, replyLines } = await replay(recording, {
    plan: (i, exchange) => drive(exchange, i === 0 ? 1 : Infinity),
  });
  assert.equal(runs.length, 2, "the replay goes on with the next exchange");
  assert.deepEqual(warnings, [
    "The run finished before the recorded reply on line 5; 2 recorded reply(ies) were not played",
  ]);
  assert.deepEqual(replyLines, [3, 9]);
});

Deno.test("replayRecording() relocates only path and command arguments, as each reply is played", async () => {
  const recording = recordingOf(
    user("q1"),
    {
      role: "assistant",
      blocks: [
        { type: "text", text: "Editing /rec/ws/a.txt" },
        {
          type: "toolCall",
          id: "c1",
          name: "edit",
          arguments: {
            path: "/rec/ws/a.txt",
            edits: [{ oldText: "/rec/ws/x", newText: "/rec/ws/y" }],
          },
        },
        { type: "toolCall", id: "c2", name: "bash", arguments: { command: "cat /rec/ws/a.txt" } },
        { type: "toolCall", id: "c3", name: "write", arguments: { path: "b", content: "/rec/ws" } },
      ],
      stopReason: "toolUse",
      usage,
    },
    {
      role: "toolResult",
      results: ["c1", "c2", "c3"].map((id) => ({
        toolCallId: id,
        toolName: "x",
        content: "ok",
        isError: false,
      })),
    },
    answer("done"),
  );
  const played: AssistantMessage[] = [];
  let moves = 0;
  await replayRecording<Outcome>(recording, {
    relocate: (text) => {
      moves++;
      return text.replaceAll("/rec/ws", "/live");
    },
    warn: () => {},
    run: async (exchange) => {
      // Nothing is relocated before a reply is asked for (later replies may need what earlier
      // results taught the relocation, e.g. bash spill files).
      assert.equal(moves, 0);
      for (;;) {
        const reply = await exchange.model.stream({ system: "", messages: [], tools: [] }, {});
        assert.ok(reply !== null);
        played.push(reply);
        if (reply.stopReason === "stop") break;
      }
      return { prompt: "", earlier: [], replies: played.length, end: "completed" };
    },
    classify: (outcome) => outcome.end,
  });
  assert.deepEqual(played[0]?.blocks.map((b) => b.type === "toolCall" ? b.arguments : b.text), [
    "Editing /rec/ws/a.txt",
    { path: "/live/a.txt", edits: [{ oldText: "/rec/ws/x", newText: "/rec/ws/y" }] },
    { command: "cat /live/a.txt" },
    { path: "b", content: "/rec/ws" },
  ]);
  const recorded = recording.exchanges[0]?.replies[0]?.message.blocks[1];
  assert.deepEqual((recorded as { arguments: unknown }).arguments, {
    path: "/rec/ws/a.txt",
    edits: [{ oldText: "/rec/ws/x", newText: "/rec/ws/y" }],
  });
});

Deno.test("createRelocation() maps workspace and home, and learns bash spill files from results", () => {
  const relocation = createRelocation(
    { workspace: "/home/alice/proj", home: "/home/alice" },
    { workspace: "/ci/repo", home: "/root" },
  );
  assert.equal(
    relocation.relocate("/home/alice/proj/src /home/alice/.ssh /home/alice/proj2"),
    "/ci/repo/src /root/.ssh /root/proj2",
  );
  const spilled = (file: string): ToolResultMessage => ({
    role: "toolResult",
    results: [{
      toolCallId: "b1",
      toolName: "bash",
      content: "…",
      isError: false,
      details: { stdoutFile: file },
    }],
  });
  const recordedFile = "/tmp/moat-run-AAA/bash-k1-00aa11bb.stdout.log";
  const liveFile = "/tmp/moat-run-BBB/bash-m2-ffee0011.stdout.log";
  assert.equal(relocation.relocate(recordedFile), recordedFile, "unknown before the result");
  relocation.learn(spilled(recordedFile), spilled(liveFile));
  assert.equal(relocation.relocate(recordedFile), liveFile);
  assert.equal(
    relocation.relocate("/tmp/moat-run-AAA/bash-k1-00aa11bb.stderr.log"),
    "/tmp/moat-run-BBB/bash-k1-00aa11bb.stderr.log",
    "the spill directory itself is mapped too",
  );
  // A background job's log file (in the start's and the job tool's details).
  const job = (logFile: string): ToolResultMessage => ({
    role: "toolResult",
    results: [{
      toolCallId: "j1",
      toolName: "job",
      content: "…",
      isError: false,
      details: { job: { id: "1", logFile } },
    }],
  });
  relocation.learn(job("/tmp/moat-run-DDD/job-1-17.log"), job("/tmp/moat-run-EEE/job-1-18.log"));
  assert.equal(
    relocation.relocate("/tmp/moat-run-DDD/job-1-17.log"),
    "/tmp/moat-run-EEE/job-1-18.log",
  );
  // Results without a recorded counterpart teach nothing.
  relocation.learn(undefined, spilled("/tmp/moat-run-CCC/x.log"));
  assert.equal(relocation.relocate("/tmp/moat-run-CCC/x.log"), "/tmp/moat-run-CCC/x.log");
});
