/**
 * End-to-end: the interactive prompt on a pseudo-terminal — line editing, history across runs,
 * bracketed paste, continuation lines, lines queued during a run, and exit codes after Ctrl-C
 * when moat runs under a launcher.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sessionDirectory } from "../../src/session/store.ts";
import { type FakeOpenAIServer, reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, processesMatching, PROJECT_ROOT, startArgv, waitUntil } from "./_cli.ts";
import { hasScript, startPty } from "./_pty.ts";

const PROMPT = /› $/;
const noScript = !(await hasScript());

/** The content of the last message of the n-th (0-based) model request, which is the user's. */
function userMessage(server: FakeOpenAIServer, n: number): unknown {
  const last = server.chatRequests[n]?.body?.messages.at(-1);
  assert.equal(last?.role, "user");
  return last?.content;
}

Deno.test({
  name:
    "interactive prompt: arrow keys edit the line, and the up arrow recalls a request of an earlier run",
  ignore: noScript,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    server.script(reply.text("First answer."), reply.text("Second answer."));
    const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
    {
      await using pty = startPty([Deno.execPath(), ...(await startArgv([]))], { cwd: ws.dir, env });
      await pty.waitFor(PROMPT);
      const mark = pty.output.length;
      // Left twice, insert, End, more text.
      await pty.type("helo\x1b[D\x1b[Dl\x1b[F world\r");
      await pty.waitFor(/First answer\.[\s\S]*› $/, { from: mark });
      assert.equal(userMessage(server, 0), "hello world");
      await pty.type("/exit\r");
      assert.equal(await pty.exited(), 0);
    }
    // Next to the workspace's sessions, private to the user.
    const file = join(await sessionDirectory(join(home.dir, "state"), ws.dir), "history");
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    {
      await using pty = startPty([Deno.execPath(), ...(await startArgv([]))], { cwd: ws.dir, env });
      await pty.waitFor(PROMPT);
      const mark = pty.output.length;
      // Newest first: "/exit", then the request.
      await pty.type("\x1b[A\x1b[A");
      await pty.waitFor(/› hello world/, { from: mark });
      await pty.type("\r");
      await pty.waitFor(/Second answer\.[\s\S]*› $/, { from: mark });
      assert.equal(userMessage(server, 1), "hello world");
      await pty.type("\x04");
      assert.equal(await pty.exited(), 0);
    }
  },
});

Deno.test({
  name:
    "interactive prompt: a bracketed paste of several lines is one message, shown as pasted; a trailing \\ continues a line",
  ignore: noScript,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    server.script(reply.text("Got the paste."), reply.text("Got both lines."));
    await using pty = startPty([Deno.execPath(), ...(await startArgv([]))], {
      cwd: ws.dir,
      env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    });
    await pty.waitFor(PROMPT);
    let mark = pty.output.length;
    await pty.type("\x1b[200~fix this:\rline two\r\rline four\x1b[201~");
    // All of it is shown, the last line too, and nothing is sent before Enter.
    await pty.waitFor(/fix this:\r\nline two\r\n\r\nline four/, { from: mark });
    assert.equal(server.chatRequests.length, 0);
    await pty.type("\r");
    await pty.waitFor(/Got the paste\.[\s\S]*› $/, { from: mark });
    assert.equal(userMessage(server, 0), "fix this:\nline two\n\nline four");

    mark = pty.output.length;
    await pty.type("first line \\\r");
    await pty.type("second line\r");
    await pty.waitFor(/Got both lines\.[\s\S]*› $/, { from: mark });
    assert.equal(userMessage(server, 1), "first line \nsecond line");
    assert.equal(server.chatRequests.length, 2);
    await pty.type("/exit\r");
    assert.equal(await pty.exited(), 0);
    // Bracketed paste mode was on while moat read the prompt, and is off again at the end.
    assert.ok(pty.output.includes("\x1b[?2004h"));
    assert.ok(pty.output.endsWith("\x1b[?2004l"), JSON.stringify(pty.output.slice(-40)));
  },
});

Deno.test({
  name:
    "interactive prompt: text typed while the agent works is shown as queued, and again when it is sent",
  ignore: noScript,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    const needle = `sleep 1.${Math.floor(Math.random() * 1e9)}`;
    server.script(
      reply.toolCalls([{ id: "c1", name: "bash", arguments: { command: needle } }]),
      reply.text("Slept."),
      reply.text("Got your note."),
    );
    await using pty = startPty([Deno.execPath(), ...(await startArgv(["--allow-run=sleep"]))], {
      cwd: ws.dir,
      env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    });
    await pty.waitFor(PROMPT);
    const mark = pty.output.length;
    await pty.type("nap\r");
    await waitUntil("the sleep to start", async () => (await processesMatching(needle)).length > 0);
    await pty.type("also check the logs\r");
    await pty.waitFor(/queued: also check the logs/, { from: mark });
    await pty.waitFor(/Slept\.\r\n[\s\S]*› also check the logs\r\n[\s\S]*Got your note\./, {
      from: mark,
    });
    assert.equal(userMessage(server, 2), "also check the logs");
    await pty.type("/exit\r");
    assert.equal(await pty.exited(), 0);
  },
});

/**
 * A launcher like `npx -y deno@2.9.6 task start`: npx runs the command through `sh -c`, and dash
 * dies of a SIGINT it got while its child ran even when the child handled it and exited 0; npm
 * then kills itself with the same signal (exit 130). This one says so and exits 130 likewise.
 */
const LAUNCHER = 'trap "interrupted=1" INT; "$@"; code=$?; ' +
  '[ -n "$interrupted" ] && { echo "launcher saw SIGINT"; exit 130; }; exit $code';

async function ctrlCThenExit(
  argv: string[],
  options: { cwd: string; env: Record<string, string> },
  server: FakeOpenAIServer,
) {
  const needle = `sleep 300.${Math.floor(Math.random() * 1e9)}`;
  server.script(
    reply.toolCalls([{ id: "c1", name: "bash", arguments: { command: needle } }]),
    reply.text("Stopped."),
  );
  await using pty = startPty(argv, options);
  await pty.waitFor(PROMPT, { timeoutMs: 60_000 });
  const mark = pty.output.length;
  await pty.type("sleep\r");
  await waitUntil("the sleep to start", async () => (await processesMatching(needle)).length > 0);
  await pty.type("\x03");
  await pty.waitFor(/aborted[\s\S]*› $/, { from: mark });
  await pty.type("/exit\r");
  const code = await pty.exited();
  return { code, output: pty.output };
}

Deno.test({
  name:
    "interactive prompt: /exit after a Ctrl-C exits 0, even under a launcher that exits 130 after a SIGINT",
  ignore: noScript,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    const moat = [Deno.execPath(), ...(await startArgv(["--allow-run=sleep"]))];
    const launched = ["sh", "-c", LAUNCHER, "sh", ...moat];
    const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
    const { code, output } = await ctrlCThenExit(launched, { cwd: ws.dir, env }, server);
    assert.ok(!output.includes("launcher saw SIGINT"), "Ctrl-C reached the launcher as a signal");
    assert.equal(code, 0);
    // Ctrl-C at the prompt leaves moat with 0 too.
    await using pty = startPty(launched, { cwd: ws.dir, env });
    await pty.waitFor(PROMPT);
    await pty.type("\x03");
    assert.equal(await pty.exited(), 0);
    assert.ok(!pty.output.includes("launcher saw SIGINT"));
  },
});

Deno.test({
  name: "interactive prompt: /exit after a Ctrl-C exits 0 through deno task start",
  ignore: noScript,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    const task = [
      Deno.execPath(),
      "task",
      "--config",
      join(PROJECT_ROOT, "deno.json"),
      "start",
      "--cwd",
      ws.dir,
      "--allow-run=sleep",
    ];
    const { code } = await ctrlCThenExit(task, {
      cwd: ws.dir,
      env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    }, server);
    assert.equal(code, 0);
  },
});

Deno.test({
  name:
    "interactive prompt: Ctrl-Z stops moat under a job-control shell, and fg brings the prompt and the typed text back",
  ignore: noScript,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    server.script(reply.text("Back again."));
    const moat = [Deno.execPath(), ...(await startArgv([]))]
      .map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ");
    await using pty = startPty(["bash", "--norc", "--noprofile", "-i"], {
      cwd: ws.dir,
      env: {
        ...cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
        PS1: "shell$ ",
      },
    });
    await pty.waitFor(/shell\$ $/);
    await pty.type(`${moat}\r`);
    await pty.waitFor(PROMPT);
    let mark = pty.output.length;
    await pty.type("half\x1a");
    await pty.waitFor(/Stopped[\s\S]*shell\$ $/, { from: mark });
    // moat gave the terminal back before it stopped: bracketed paste went off.
    assert.ok(pty.output.slice(mark).includes("\x1b[?2004l"));
    mark = pty.output.length;
    await pty.type("fg\r");
    await pty.waitFor(/› half/, { from: mark });
    await pty.type(" done\r");
    await pty.waitFor(/Back again\.[\s\S]*› $/, { from: mark });
    assert.equal(userMessage(server, 0), "half done");
    await pty.type("\x04");
    await pty.waitFor(/shell\$ $/, { from: mark });
    await pty.type("exit\r");
    assert.equal(await pty.exited(), 0);
  },
});
