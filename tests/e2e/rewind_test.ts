/**
 * End-to-end: a print run that writes a file takes checkpoints in the session's rewind
 * directory (on the host, next to the session), and `moat rewind --list` lists the turn and
 * shows what rewinding it would change, without changing it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, runMoat } from "./_cli.ts";

Deno.test("moat rewind --list lists a run's turn and what rewinding it would change", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "a.txt": "one\n" });
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  server.script(
    reply.toolCalls([{ id: "w1", name: "write", arguments: { path: "a.txt", content: "two\n" } }]),
    reply.text("Done."),
  );
  const run = await runMoat(["rewrite a.txt\nwith two"], { cwd: ws.dir, env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await Deno.readTextFile(join(ws.dir, "a.txt")), "two\n");

  const listed = await runMoat(["rewind", "--list"], { cwd: ws.dir, env });
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal(listed.stdout, "  1  rewrite a.txt  (a.txt)\n");
  const plan = await runMoat(["rewind", "--to", "1", "--list"], { cwd: ws.dir, env });
  assert.equal(plan.code, 0, plan.stderr);
  assert.equal(plan.stdout, "Rewinding to before turn 1 (rewrite a.txt) would:\n  restore a.txt\n");
  assert.equal(await Deno.readTextFile(join(ws.dir, "a.txt")), "two\n", "--list changes nothing");
  const usage = await runMoat(["rewind", "--to", "x"], { cwd: ws.dir, env });
  assert.equal(usage.code, 2);
});
