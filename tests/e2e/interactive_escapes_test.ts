/**
 * End-to-end, interactively (a pseudo-terminal): the approval path restarts the tool host, where
 * escapes lived. Each test answers the real question on the terminal and checks what bash sees
 * afterwards.
 */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { cliEnv, startArgv, toolResultOf } from "./_cli.ts";
import { hasScript, startPty } from "./_pty.ts";

const PROMPT = /› $/;
const QUESTION = /\[N\]o \(Enter\) $/;
const usable = BWRAP && await hasScript();

Deno.test({
  name:
    "interactive: approving a path whose first directory is missing does not show bash the real /tmp",
  ignore: !usable,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    const marker = await Deno.makeTempFile({ prefix: "moat-e2e-marker-" });
    try {
      const missing = `/moat-e2e-missing-${crypto.randomUUID().slice(0, 8)}/report.md`;
      server.script(
        reply.toolCalls([{ id: "w1", name: "write", arguments: { path: missing, content: "x" } }]),
        reply.toolCalls([{ id: "b1", name: "bash", arguments: { command: "ls -a /tmp /" } }]),
        reply.text("done"),
      );
      await using pty = startPty([Deno.execPath(), ...(await startArgv([]))], {
        cwd: ws.dir,
        env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
      });
      await pty.waitFor(PROMPT);
      await pty.type("write the report\r");
      await pty.waitFor(QUESTION);
      await pty.type("a\r");
      await pty.waitFor(/done[\s\S]*› $/);
      const listing = toolResultOf(server, "b1");
      assert.ok(!listing.includes(marker.split("/").at(-1) as string), listing);
      assert.doesNotMatch(listing, /moat-e2e-missing/);
      await pty.type("\x04");
      assert.equal(await pty.exited(), 0);
    } finally {
      await Deno.remove(marker);
    }
  },
});

Deno.test({
  name:
    "interactive: a path made to look like another question is shown escaped, with its real location",
  ignore: !usable,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    await using elsewhere = await createTempWorkspace();
    const disguised = `${elsewhere.dir}/x\r\x1b[2Kmoat wants to write \u2215tmp\u2215scratch.txt`;
    server.script(
      reply.toolCalls([{ id: "w1", name: "write", arguments: { path: disguised, content: "x" } }]),
      reply.text("done"),
    );
    await using pty = startPty([Deno.execPath(), ...(await startArgv([]))], {
      cwd: ws.dir,
      env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    });
    await pty.waitFor(PROMPT);
    const mark = pty.output.length;
    await pty.type("write it\r");
    const shown = await pty.waitFor(QUESTION, { from: mark });
    assert.ok(!shown.includes("\x1b[2K") && !shown.includes("\u2215"), JSON.stringify(shown));
    // The question wraps at spaces to the terminal's width: read it as one line.
    const unwrapped = shown.replace(/\r?\n/g, " ");
    assert.ok(
      unwrapped.includes(`${elsewhere.dir}/x\\u000d\\u001b[2Kmoat wants to write \\u2215tmp`),
      JSON.stringify(shown),
    );
    await pty.type("n\r");
    await pty.waitFor(/done[\s\S]*› $/);
    await pty.type("\x04");
    assert.equal(await pty.exited(), 0);
  },
});

Deno.test({
  name:
    "interactive: a nested deny path bash turns into a symlink is not mounted after an approval restarts the host",
  ignore: !usable,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace({ "conf/hooks/keep.txt": "k\n" });
    await using home = await createTempWorkspace();
    await using outside = await createTempWorkspace({ "secret.txt": "OUTSIDE-SECRET-42\n" });
    await using extra = await createTempWorkspace({ "note.txt": "note\n" });
    server.script(
      reply.toolCalls([{
        id: "b1",
        name: "bash",
        arguments: {
          command: `mv conf conf_real && mkdir conf && ln -s ${outside.dir} conf/hooks; ` +
            `echo "rc=$?"`,
        },
      }]),
      reply.toolCalls([{ id: "r1", name: "read", arguments: { path: extra.path("note.txt") } }]),
      reply.toolCalls([{
        id: "b2",
        name: "bash",
        arguments: { command: "cat conf/hooks/secret.txt; ls conf/hooks" },
      }]),
      reply.text("done"),
    );
    await using pty = startPty(
      [Deno.execPath(), ...(await startArgv(["--deny-write=conf/hooks"]))],
      {
        cwd: ws.dir,
        env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
      },
    );
    await pty.waitFor(PROMPT);
    await pty.type("go\r");
    await pty.waitFor(QUESTION);
    await pty.type("a\r");
    await pty.waitFor(/done[\s\S]*› $/);
    assert.doesNotMatch(toolResultOf(server, "b1"), /rc=0\b/, toolResultOf(server, "b1"));
    assert.doesNotMatch(
      toolResultOf(server, "b2"),
      /OUTSIDE-SECRET-42/,
      toolResultOf(server, "b2"),
    );
    assert.equal((await Deno.lstat(ws.path("conf/hooks"))).isDirectory, true);
    await pty.type("\x04");
    assert.equal(await pty.exited(), 0);
  },
});
