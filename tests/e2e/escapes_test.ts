/**
 * End-to-end: escapes found by an adversarial pass, each tried through the real CLI with a
 * scripted model (the fake OpenAI server) making the tool calls.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { cliEnv, denoDir, runMoat, spawnMoat, startArgv, toolResultOf } from "./_cli.ts";

Deno.test({
  name: "descriptors moat inherits (9<secret 8>>log) do not reach sandboxed bash",
  ignore: !BWRAP,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using outside = await createTempWorkspace({
      "secret.txt": "OUTSIDE-SECRET\n",
      "log": "",
    });
    server.script(
      reply.toolCalls([{
        id: "c1",
        name: "bash",
        arguments: { command: "cat <&9; echo leaked >&8; ls /proc/self/fd; echo done" },
      }]),
      reply.text("ok"),
    );
    const argv = [Deno.execPath(), ...(await startArgv(["-p", "go"]))];
    const out = await new Deno.Command("bash", {
      args: ["-c", 'exec "$@" 9<"$SECRET" 8>>"$LOG" </dev/null', "moat", ...argv],
      cwd: ws.dir,
      env: cliEnv(ws.dir, {
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: "k",
        SECRET: outside.path("secret.txt"),
        LOG: outside.path("log"),
      }),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const result = toolResultOf(server, "c1");
    assert.doesNotMatch(result, /OUTSIDE-SECRET/);
    assert.match(result, /Bad file descriptor/);
    assert.match(result, /done/);
    assert.equal(await Deno.readTextFile(outside.path("log")), "");
  },
});

Deno.test({
  name: "the API key is in no environment a sandboxed bash call can read, pid 1's included",
  ignore: !BWRAP,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    const key = "sk-e2e-environ-4b1d";
    server.script(
      reply.toolCalls([{
        id: "c1",
        name: "bash",
        arguments: {
          command:
            "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c 'sk-e2e' || true",
        },
      }]),
      reply.text("ok"),
    );
    const argv = await startArgv(["-A", "-p", "go"]);
    const out = await new Deno.Command(Deno.execPath(), {
      args: argv,
      cwd: ws.dir,
      env: cliEnv(ws.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: key }),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(toolResultOf(server, "c1").trim().split("\n")[0], "0");
  },
});

Deno.test("a catastrophic regular expression in grep ends at once and later calls run (V8's linear fallback)", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "input.txt": `${"a".repeat(60)}!\naaa\n` });
  server.script(
    reply.toolCalls([
      { id: "c1", name: "grep", arguments: { pattern: "^(a+)+$", path: "input.txt" } },
    ]),
    reply.toolCalls([{ id: "c2", name: "ls", arguments: {} }]),
    reply.text("ok"),
  );
  const child = await spawnMoat(["-p", "go"], {
    cwd: ws.dir,
    env: cliEnv(ws.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  // Without the fallback this run would not end: fail the test instead of hanging the suite.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const out = await child.output();
  clearTimeout(guard);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(toolResultOf(server, "c1"), /input\.txt:2: aaa/);
  assert.match(toolResultOf(server, "c2"), /input\.txt/);
});

Deno.test({
  name: "under deno run, bash sees none of Deno's cache but moat's own packages and modules",
  ignore: !BWRAP,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    // Another project's transpiled source in the same cache.
    const other = join(denoDir(), "gen", "file", `moat-e2e-other-${crypto.randomUUID()}`);
    await Deno.mkdir(other, { recursive: true });
    try {
      await Deno.writeTextFile(join(other, "secret.ts.js"), "const password = 'CACHE-SECRET';\n");
      server.script(
        reply.toolCalls([{
          id: "c1",
          name: "bash",
          arguments: { command: `cat ${other}/secret.ts.js; ls ${denoDir()}; echo end` },
        }]),
        reply.text("ok"),
      );
      const out = await runMoat(["-p", "go"], {
        cwd: ws.dir,
        env: cliEnv(ws.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
      });
      assert.equal(out.code, 0, out.stderr);
      const result = toolResultOf(server, "c1");
      assert.doesNotMatch(result, /CACHE-SECRET/, result);
      assert.doesNotMatch(result, /v8_code_cache|dep_analysis_cache/, result);
      assert.match(result, /end/);
    } finally {
      await Deno.remove(other, { recursive: true });
    }
  },
});
