/**
 * End-to-end: a task whose tool output is many times the model's context window finishes, with
 * the history compacted on the way (print mode, JSONL events, sessions, --continue, --replay).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type FakeChatBody,
  type FakeOpenAIOptions,
  type RecordedRequest,
  repeat,
  reply,
  startFakeOpenAI,
  type Step,
} from "../support/fake_openai.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { cliEnv, jsonLines, runMoat, sessionFiles } from "./_cli.ts";

const PROMPT = "Read the files f01.txt to f30.txt one by one and tell me the secret word.";
const FILES = 30;

/** 30 files of 12 KB each; the secret word is in the last one. */
async function writeFiles(ws: TempWorkspace): Promise<void> {
  for (let i = 1; i <= FILES; i++) {
    const name = `f${String(i).padStart(2, "0")}.txt`;
    const line = `${name}: ${"lorem ipsum dolor sit amet ".repeat(3)}\n`;
    let text = line.repeat(Math.ceil(12_000 / line.length)).slice(0, 12_000);
    if (i === FILES) text += "\nThe secret word is PELICAN.\n";
    await Deno.writeTextFile(ws.path(name), text);
  }
}

const isSummaryRequest = (body: FakeChatBody | undefined) => (body?.tools ?? []).length === 0;

/**
 * The model: reads the files one per turn (whatever the history holds), answers with the word
 * when the last read showed it; a summary request gets a structured summary.
 */
function reader(state: { reads: number; summaries: number }): Step {
  return (request: RecordedRequest) => {
    const body = request.body;
    if (isSummaryRequest(body)) {
      state.summaries++;
      return reply.text(
        `## User requests\n"${PROMPT}"\n## Done\nRead f01.txt to f${
          String(state.reads).padStart(2, "0")
        }.txt.\n## Next step\nRead the next file.`,
      );
    }
    const last = body?.messages.at(-1);
    if (last?.role === "user" && last.content === "what was the word?") {
      return reply.text("It was PELICAN.");
    }
    if (last?.role === "tool" && String(last.content).includes("PELICAN")) {
      return reply.text("The secret word is PELICAN.");
    }
    state.reads++;
    const name = `f${String(state.reads).padStart(2, "0")}.txt`;
    return reply.toolCalls([{
      id: `call_${state.reads}`,
      name: "read",
      arguments: { path: name },
    }]);
  };
}

async function setUp(options: FakeOpenAIOptions) {
  const server = await startFakeOpenAI(options);
  const ws = await createTempWorkspace();
  const home = await createTempWorkspace();
  await writeFiles(ws);
  const state = { reads: 0, summaries: 0 };
  const step = reader(state);
  server.script(repeat(step));
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  return {
    server,
    ws,
    home,
    state,
    env,
    async [Symbol.asyncDispose]() {
      await server.close();
      await ws[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}

function userTexts(body: FakeChatBody | undefined): string[] {
  return (body?.messages ?? []).filter((m) => m.role === "user").map((m) => String(m.content));
}

Deno.test("moat -p reads 30 files of 12 KB through a 24,000-token window and keeps the prompt", async () => {
  await using t = await setUp({ contextWindow: 24_000 });
  const run = await runMoat(["--context-window", "24000", "--output", "jsonl", PROMPT], {
    cwd: t.ws.dir,
    env: t.env,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(t.state.reads, FILES);
  assert.equal(t.server.overflows, 0, "compaction happened before any request overflowed");
  const events = jsonLines(run.stdout);
  const ends = events.filter((e) => e.type === "compaction_end");
  assert.ok(ends.length >= 1, "at least one compaction");
  for (const end of ends) {
    assert.equal(end.outcome, "compacted");
    assert.ok((end.tokensAfter as number) < (end.tokensBefore as number));
  }
  assert.equal(
    events.filter((e) => e.type === "compaction_start").length,
    ends.length,
    "one start per end",
  );
  const final = t.server.chatRequests.filter((r) => !isSummaryRequest(r.body)).at(-1)?.body;
  assert.ok(userTexts(final).includes(PROMPT), "the final request still holds the user's prompt");
  const runEnd = events.at(-1) as Record<string, unknown>;
  assert.equal(runEnd.type, "run_end");
  assert.equal(runEnd.exitCode, 0);
  const result = events.find((e) => e.type === "message_end" && e.text !== "");
  assert.equal(result?.text, "The secret word is PELICAN.");
  // Summary requests (if any) count as turns.
  assert.equal(runEnd.turns, FILES + 1 + t.state.summaries);
});

Deno.test("moat recovers from an overflow without a configured window (learned from the error)", async () => {
  for (const style of ["openai", "vllm", "llamacpp", "ollama", "plain"] as const) {
    await using t = await setUp({ contextWindow: 24_000, overflowStyle: style });
    const run = await runMoat([PROMPT], { cwd: t.ws.dir, env: t.env });
    assert.equal(run.code, 0, `${style}: ${run.stderr}`);
    assert.equal(run.stdout, "The secret word is PELICAN.\n");
    assert.ok(t.server.overflows >= 1, `${style}: the window was learned from an overflow`);
    assert.match(run.stderr, /moat: compacted the conversation to fit the context window/);
    const final = t.server.chatRequests.at(-1)?.body;
    assert.ok(userTexts(final).includes(PROMPT), style);
  }
});

Deno.test("moat -c continues from the compacted history recorded in the session", async () => {
  await using t = await setUp({ contextWindow: 24_000 });
  const first = await runMoat(["--context-window", "24000", PROMPT], {
    cwd: t.ws.dir,
    env: t.env,
  });
  assert.equal(first.code, 0, first.stderr);
  const [file] = await sessionFiles(join(t.home.dir, "state"));
  const lines = (await Deno.readTextFile(file as string)).trimEnd().split("\n").map((l) =>
    JSON.parse(l)
  );
  const compactions = lines.filter((l) => l.type === "compaction");
  assert.ok(compactions.length >= 1);
  const lastCompaction = compactions.at(-1);
  assert.ok(Array.isArray(lastCompaction.messages));
  const after = lines.slice(lines.lastIndexOf(lastCompaction) + 1).length;

  const before = t.server.chatRequests.length;
  const second = await runMoat(["--context-window", "24000", "-c", "what was the word?"], {
    cwd: t.ws.dir,
    env: t.env,
  });
  assert.equal(second.code, 0, second.stderr);
  const sent = t.server.chatRequests[before]?.body;
  // The compacted history plus the messages after it, plus the new prompt (and the system).
  const nonSystem = (sent?.messages ?? []).filter((m) => m.role !== "system");
  const expected = lastCompaction.messages.length + after + 1;
  // toolResult messages become one wire message per result: count them the same way.
  assert.ok(nonSystem.length >= expected, `${nonSystem.length} >= ${expected}`);
  // The early reads went back as stubs, not as the 12 KB the file holds.
  const firstRead = nonSystem.find((m) => m.role === "tool" && m.tool_call_id === "call_1");
  assert.ok(
    firstRead === undefined || String(firstRead.content).startsWith("[Result removed"),
    String(firstRead?.content).slice(0, 200),
  );
  assert.equal(t.server.overflows, 0);
  assert.deepEqual(userTexts(sent).slice(-1), ["what was the word?"]);
  assert.ok(userTexts(sent).includes(PROMPT));
});

Deno.test("moat --replay plays a recording with compactions through", async () => {
  await using t = await setUp({ contextWindow: 24_000 });
  const first = await runMoat(["--context-window", "24000", PROMPT], {
    cwd: t.ws.dir,
    env: t.env,
  });
  assert.equal(first.code, 0, first.stderr);
  const [file] = await sessionFiles(join(t.home.dir, "state"));
  const replay = await runMoat(["--replay", file as string, "--replay-check", "--no-session"], {
    cwd: t.ws.dir,
    env: t.env,
  });
  assert.equal(replay.code, 0, replay.stderr);
  assert.equal(replay.stdout.trim(), "The secret word is PELICAN.");
});

Deno.test("moat exits 6 when one message is larger than the context window", async () => {
  await using server = await startFakeOpenAI({ contextWindow: 2_000 });
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const big = "Please consider this: " + "words and more words ".repeat(2_000);
  const run = await runMoat(["--output", "json", big], { cwd: ws.dir, env });
  assert.equal(run.code, 6, run.stderr);
  assert.match(run.stderr, /does not fit the model's context window of 2,000 tokens/);
  const result = JSON.parse(run.stdout);
  assert.equal(result.stopReason, "contextExhausted");
  assert.equal(result.exitCode, 6);
  assert.equal(result.error.kind, "context_exhausted");

  const off = await runMoat(["--no-compaction", big], { cwd: ws.dir, env });
  assert.equal(off.code, 6, off.stderr);
  assert.match(off.stderr, /Compaction is off/);
});

Deno.test("moat learns the window from the server's model information (vLLM max_model_len)", async () => {
  await using t = await setUp({
    contextWindow: 24_000,
    models: ["local-coder"],
    modelInfo: { max_model_len: 24_000 },
  });
  const run = await runMoat(["--model", "local-coder", PROMPT], { cwd: t.ws.dir, env: t.env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "The secret word is PELICAN.\n");
  assert.equal(t.server.overflows, 0, "compacted before the server had to refuse anything");
  assert.ok(t.server.requests.some((r) => r.method === "GET" && r.path === "/v1/models"));
});
