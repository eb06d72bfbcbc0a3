/** End-to-end: a reasoning model on a server without a tool parser, through the real CLI. */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, jsonLines, runMoat, sessionFiles } from "./_cli.ts";
import { VLLM_UNPARSED_HERMES } from "../model/reasoning_fixtures.ts";

Deno.test("moat runs calls written as text, keeps reasoning off stdout and in the session", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "a.txt": "alpha\n" });
  await using home = await createTempWorkspace();
  server.script(
    reply.deltas([{ reasoning_content: "I should read a.txt." }, ...VLLM_UNPARSED_HERMES]),
    reply.deltas([{ content: "<think>It says alpha.</think>\n\n" }, { content: "It says alpha." }]),
  );
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const result = await runMoat(["what is in a.txt?"], { cwd: ws.dir, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "It says alpha.\n");
  assert.match(result.stderr, /✓ read a\.txt/);
  const warnings = result.stderr.match(/moat: warning: .*returned tool calls as text.*/g) ?? [];
  assert.equal(warnings.length, 1, result.stderr);
  assert.match(warnings[0]!, /--enable-auto-tool-choice --tool-call-parser hermes/);
  assert.ok(!result.stderr.includes("I should read"), "reasoning is not printed off a TTY");
  const second = server.chatRequests[1]?.body;
  const tool = second?.messages.find((m) => m.role === "tool");
  assert.match(String(tool?.content), /alpha/);
  const assistant = second?.messages.find((m) => m.role === "assistant");
  assert.equal(assistant?.tool_calls?.[0]?.function.name, "read");
  assert.equal(assistant?.reasoning_content, undefined, "not a DeepSeek endpoint");
  const [session] = await sessionFiles(`${home.dir}/state`);
  assert.ok(session !== undefined);
  const text = await Deno.readTextFile(session);
  assert.ok(text.includes('"thinking":"I should read a.txt."'), "the session keeps the reasoning");
  // The session loads and replays.
  server.script(reply.text("Still alpha."));
  const resumed = await runMoat(["--continue", "and now?"], { cwd: ws.dir, env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "Still alpha.\n");
});

Deno.test("moat --output jsonl puts the reasoning in message_end and the warning in a warning line", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "a.txt": "alpha\n" });
  await using home = await createTempWorkspace();
  server.script(
    reply.deltas([...VLLM_UNPARSED_HERMES]),
    reply.deltas([{ reasoning: "Done reading." }, { content: "alpha" }]),
  );
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const result = await runMoat(["--output", "jsonl", "--no-session", "--include-deltas", "go"], {
    cwd: ws.dir,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  const lines = jsonLines(result.stdout);
  const ends = lines.filter((l) => l.type === "message_end");
  assert.deepEqual(ends.map((l) => l.text), ["I'll read it.", "alpha"]);
  assert.equal(ends[1]?.thinking, "Done reading.");
  assert.deepEqual(
    lines.filter((l) => l.type === "thinking_delta").map((l) => l.delta),
    ["Done reading."],
  );
  assert.equal(lines.filter((l) => l.type === "warning").length, 1);
  const deltas = lines.filter((l) => l.type === "text_delta").map((l) => l.delta).join("");
  assert.ok(!deltas.includes("<tool_call>"), deltas);
});
