/**
 * End-to-end: whose refusal it was, through the real CLI in print mode. A bash call naming a
 * program a scoped --allow-run does not grant is refused before it runs, naming the whole flag;
 * a connection under the default grants is refused by moat (not "Could not resolve host"); both
 * count for --fail-on-deny.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { cliEnv, runMoat } from "./_cli.ts";

async function run(flags: string[], command: string) {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  server.script(
    reply.toolCalls([{ id: "c1", name: "bash", arguments: { command } }]),
    reply.text("done"),
  );
  const result = await runMoat(["--sandbox=require", "--fail-on-deny", ...flags, "go"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  const tool = server.chatRequests[1]?.body?.messages.find((m) => m.role === "tool");
  const ran = await Deno.lstat(join(ws.dir, "ran.txt")).then(() => true, () => false);
  return { ...result, toolText: String(tool?.content), ran };
}

Deno.test({
  name: "print mode refuses a bash call naming ungranted programs before it runs (exit 4)",
  ignore: !BWRAP,
  async fn() {
    const result = await run(["--allow-run=git"], "echo x > ran.txt; ls | head -3");
    assert.equal(result.code, 4, result.stderr);
    assert.equal(result.ran, false, "nothing of the command ran");
    assert.match(
      result.toolText,
      /run access to "ls" and "head" is not granted: bash was not run \(add --allow-run=git,ls,head\)/,
    );
    assert.doesNotMatch(result.toolText, /command not found/);
    assert.match(result.stderr, /--allow-run=git,ls,head/);
    assert.doesNotMatch(result.stderr, /[Ll]ifecycle script/);
  },
});

Deno.test({
  name: "under the default grants a connection is moat's refusal, counted for --fail-on-deny",
  ignore: !BWRAP,
  async fn() {
    const result = await run([], "curl -sS https://example.invalid/; true");
    assert.equal(result.code, 4, result.stderr);
    assert.doesNotMatch(result.toolText, /Could not resolve host/);
    assert.match(result.toolText, /--allow-net=example\.invalid:443 to allow it\]/);
    assert.match(result.stderr, /bash connection to example\.invalid:443 refused: .*--allow-net=/);
  },
});

Deno.test({
  name: "--output json lists a refused bash connection with the flag the model was told to add",
  ignore: !BWRAP,
  async fn() {
    const result = await run(["--output", "json"], "curl -sS https://example.invalid/; true");
    assert.equal(result.code, 4, result.stderr);
    const denials = JSON.parse(result.stdout).denials as Array<Record<string, unknown>>;
    const net = denials.find((d) => d.access === "net");
    assert.equal(net?.target, "example.invalid:443", JSON.stringify(denials));
    assert.equal(net?.hint, "--allow-net=example.invalid:443");
  },
});
