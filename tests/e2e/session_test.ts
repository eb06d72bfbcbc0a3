/** End-to-end: sessions are written per message, continued with --continue / --session, and repaired after a torn line. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, runMoat, sessionFiles } from "./_cli.ts";

function userTexts(messages: Array<{ role: string; content?: unknown }> | undefined): string[] {
  return (messages ?? []).filter((m) => m.role === "user").map((m) => String(m.content));
}

Deno.test("moat --continue resumes the newest session and the model receives the earlier messages", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  server.script(reply.text("Noted: 7."), reply.text("It was 7."), reply.text("Still 7."));

  const first = await runMoat(["remember the number 7"], { cwd: ws.dir, env });
  assert.equal(first.code, 0, first.stderr);
  const files = await sessionFiles(join(home.dir, "state"));
  assert.equal(files.length, 1);
  const file = files[0] as string;
  // Sessions hold what the tools read: only the user may read them.
  assert.equal(((await Deno.stat(file)).mode ?? 0) & 0o077, 0);
  assert.equal(((await Deno.stat(join(file, ".."))).mode ?? 0) & 0o077, 0);
  const lines = (await Deno.readTextFile(file)).trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines[0].type, "session");
  assert.equal(lines[0].cwd, ws.dir);
  assert.ok(lines[0].grants);
  assert.equal(typeof lines[0].moatVersion, "string");
  assert.deepEqual(lines.slice(1).map((l) => l.message.role), ["user", "assistant"]);

  const second = await runMoat(["--continue", "which number?"], { cwd: ws.dir, env });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, "It was 7.\n");
  const sent = server.chatRequests[1]?.body?.messages;
  assert.deepEqual(userTexts(sent), ["remember the number 7", "which number?"]);
  assert.ok(sent?.some((m) => m.role === "assistant" && String(m.content).includes("Noted: 7.")));
  // Appended to the same file, not a new one.
  assert.deepEqual(await sessionFiles(join(home.dir, "state")), files);

  // A crash mid-write leaves a torn last line: the next --continue cuts it off into a side file
  // (saying so) and goes on after the last complete line.
  const text = await Deno.readTextFile(file);
  const cut = text.slice(0, text.length - 12);
  const complete = cut.slice(0, cut.lastIndexOf("\n") + 1);
  await Deno.writeTextFile(file, cut);
  const third = await runMoat(["-c", "and now?"], { cwd: ws.dir, env });
  assert.equal(third.code, 0, third.stderr);
  assert.match(
    third.stderr,
    /cut off a torn last line \(line \d+, \d+ bytes\).* its bytes are kept in ".*\.jsonl\.torn"/,
  );
  const resent = server.chatRequests[2]?.body?.messages;
  assert.deepEqual(userTexts(resent), ["remember the number 7", "which number?", "and now?"]);
  assert.ok(!resent?.some((m) => String(m.content).includes("It was 7.")), "torn reply dropped");
  assert.equal(await Deno.readTextFile(`${file}.torn`), `${cut.slice(complete.length)}\n`);
  assert.ok((await Deno.readTextFile(file)).startsWith(complete));

  // Repaired for good: the next resume warns about nothing, and the session replays.
  server.script(reply.text("Yes, 7."));
  const fourth = await runMoat(["-c", "sure?"], { cwd: ws.dir, env });
  assert.equal(fourth.code, 0, fourth.stderr);
  assert.doesNotMatch(fourth.stderr, /torn|skipped/);
  const replayed = await runMoat(["--replay", file, "--no-session"], { cwd: ws.dir, env });
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stdout, /Still 7\.\n\nYes, 7\.\n$/);
});

Deno.test("moat --session FILE writes there and a later --session FILE continues it; --no-session writes nothing", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  server.script(reply.text("one"), reply.text("two"), reply.text("three"));
  assert.equal((await runMoat(["--session", "s.jsonl", "first"], { cwd: ws.dir, env })).code, 0);
  assert.equal((await runMoat(["--session", "s.jsonl", "second"], { cwd: ws.dir, env })).code, 0);
  assert.deepEqual(userTexts(server.chatRequests[1]?.body?.messages), ["first", "second"]);
  const lines = (await Deno.readTextFile(ws.path("s.jsonl"))).trimEnd().split("\n");
  assert.equal(lines.length, 5);
  assert.equal((await runMoat(["--no-session", "third"], { cwd: ws.dir, env })).code, 0);
  assert.deepEqual(await sessionFiles(join(home.dir, "state")), []);
});
