/**
 * End-to-end: `moat sessions` lists a workspace's sessions, and on a terminal `moat --resume`
 * offers them as a numbered list, resumes the one typed, shows its last exchange, and shows a
 * usage line (with cost, from configured prices) after each answer.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, runMoat, sessionFiles, startArgv } from "./_cli.ts";
import { hasScript, startPty } from "./_pty.ts";

Deno.test({
  name:
    "moat sessions lists the workspace's sessions; moat --resume on a terminal picks one by number and shows usage after the answer",
  ignore: !(await hasScript()),
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace({
      "config/moat/config.json": JSON.stringify({
        prices: { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
      }),
    });
    const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
    server.script(
      reply.text("Noted: 7."),
      reply.text("Noted: blue."),
      reply.text("You asked me to remember 7.", {
        usage: { prompt_tokens: 1200, completion_tokens: 56, cached_tokens: 1000 },
      }),
    );
    assert.equal((await runMoat(["remember the number 7"], { cwd: ws.dir, env })).code, 0);
    assert.equal((await runMoat(["remember the colour blue"], { cwd: ws.dir, env })).code, 0);
    const files = await sessionFiles(join(home.dir, "state"));
    assert.equal(files.length, 2);

    const listed = await runMoat(["sessions"], { cwd: ws.dir, env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /\n1\. .* · 2 messages · .*\n {3}remember the colour blue\n/);
    assert.match(listed.stdout, /\n2\. .* · 2 messages · .*\n {3}remember the number 7\n/);

    await using pty = startPty([Deno.execPath(), ...(await startArgv(["--resume"]))], {
      cwd: ws.dir,
      env,
    });
    await pty.waitFor(
      /Resume which session\? Type its number, or press Enter to start a new one: $/,
    );
    let mark = pty.output.length;
    await pty.type("2\r");
    await pty.waitFor(
      /Last exchange:\r?\n {2}you: {2}remember the number 7\r?\n {2}moat: Noted: 7\.\r?\n[\s\S]*› $/,
      { from: mark },
    );
    mark = pty.output.length;
    await pty.type("what did I ask?\r");
    // 200 uncached × 2 + 1,000 cached × 0.5 + 56 × 8, per million.
    await pty.waitFor(
      /You asked me to remember 7\.\r?\n[\s\S]*tokens: 1,200 in \(1,000 cached\) · 56 out · cost 0\.001348\r?\n[\s\S]*› $/,
      { from: mark },
    );
    const sent = server.chatRequests[2]?.body?.messages ?? [];
    assert.deepEqual(
      sent.filter((m) => m.role === "user").map((m) => m.content),
      ["remember the number 7", "what did I ask?"],
    );
    await pty.type("/exit\r");
    assert.equal(await pty.exited(), 0);
    // The question went into the chosen session's file.
    assert.equal((await sessionFiles(join(home.dir, "state"))).length, 2);
    const texts = await Promise.all(files.map((f) => Deno.readTextFile(f)));
    assert.match(texts.find((t) => t.includes("remember the number 7")) ?? "", /what did I ask\?/);
    assert.doesNotMatch(texts.find((t) => t.includes("colour blue")) ?? "", /what did I ask/);
  },
});

Deno.test("moat --resume with a prompt in the session's place exits 2 naming both ways to write it, before any request", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  server.script(reply.text("Noted."), reply.text("Went on."));
  const first = await runMoat(["remember 7"], { cwd: ws.dir, env });
  assert.equal(first.code, 0, first.stderr);

  // With stdin empty (as in CI) or holding text: the value is the problem, not the prompt.
  for (const stdin of [undefined, "more text\n"]) {
    const result = await runMoat(["--resume", "fix the bug"], {
      cwd: ws.dir,
      env,
      ...(stdin === undefined ? {} : { stdin }),
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /No session "fix the bug": it is neither an id/);
    assert.match(result.stderr, /moat --resume ID "prompt"/);
    assert.match(result.stderr, /moat -c "fix the bug"/);
    assert.doesNotMatch(result.stderr, /stdin/);
  }
  assert.equal(server.chatRequests.length, 1);

  // Both ways the error shows work.
  const [file] = await sessionFiles(join(home.dir, "state"));
  const id = (file ?? "").replace(/^.*\//, "").replace(/\.jsonl$/, "");
  const resumed = await runMoat(["--resume", id, "go on"], { cwd: ws.dir, env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "Went on.\n");
  assert.equal(server.chatRequests[1]?.body?.messages.length, 4, "the resumed history was sent");
});
