/** End-to-end: interactive mode driven through a pseudo-terminal (util-linux `script`). */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, processesMatching, startArgv, waitUntil } from "./_cli.ts";
import { hasScript, startPty } from "./_pty.ts";

const PROMPT = /› $/;

Deno.test({
  name: "interactive mode: a question, an answer, Ctrl-C during a tool, a second question, /exit",
  ignore: !(await hasScript()),
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    const needle = `sleep 300.${Math.floor(Math.random() * 1e9)}`;
    server.script(
      reply.text("Hi there, human."),
      reply.toolCalls([{ id: "call_sleep", name: "bash", arguments: { command: needle } }]),
      reply.text("Second answer."),
    );
    await using pty = startPty([Deno.execPath(), ...(await startArgv(["--allow-run=sleep"]))], {
      cwd: ws.dir,
      env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    });
    await pty.waitFor(PROMPT);

    let mark = pty.output.length;
    await pty.type("hello\r");
    await pty.waitFor(/Hi there, human\.\r?\n[\s\S]*› $/, { from: mark });

    mark = pty.output.length;
    await pty.type("sleep for a while\r");
    await waitUntil("the sleep to start", async () => (await processesMatching(needle)).length > 0);
    await pty.type("\x03");
    await pty.waitFor(/aborted[\s\S]*› $/, { from: mark });
    await waitUntil(
      "the sleep to be gone",
      async () => (await processesMatching(needle)).length === 0,
      5000,
    );

    mark = pty.output.length;
    await pty.type("second question\r");
    await pty.waitFor(/Second answer\.\r?\n[\s\S]*› $/, { from: mark });
    // History stayed consistent: the aborted call was answered before the second question.
    const third = server.chatRequests[2]?.body?.messages ?? [];
    const toolMessage = third.find((m) => m.role === "tool");
    assert.ok(toolMessage !== undefined, "the interrupted call has a result");
    assert.equal(third.at(-1)?.role, "user");
    assert.equal(third.at(-1)?.content, "second question");

    await pty.type("/exit\r");
    assert.equal(await pty.exited(), 0);
  },
});

Deno.test({
  name: "interactive mode: /help, /grants, /model, Ctrl-D exits 0",
  ignore: !(await hasScript()),
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    server.script(reply.text("From the other model."));
    await using pty = startPty([Deno.execPath(), ...(await startArgv([]))], {
      cwd: ws.dir,
      env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    });
    await pty.waitFor(PROMPT);
    let mark = pty.output.length;
    await pty.type("/help\r");
    await pty.waitFor(/\/grants[\s\S]*› $/, { from: mark });
    mark = pty.output.length;
    await pty.type("/grants\r");
    await pty.waitFor(new RegExp(`Grants: read: ${ws.dir}[\\s\\S]*› $`), { from: mark });
    mark = pty.output.length;
    await pty.type("/model other-model\r");
    await pty.waitFor(/Model: other-model[\s\S]*› $/, { from: mark });
    mark = pty.output.length;
    await pty.type("which model?\r");
    await pty.waitFor(/From the other model\.[\s\S]*› $/, { from: mark });
    assert.equal(server.chatRequests[0]?.body?.model, "other-model");
    await pty.type("\x04");
    assert.equal(await pty.exited(), 0);
  },
});

Deno.test({
  name:
    "interactive mode: a line typed while the agent works is queued and delivered when it stops",
  ignore: !(await hasScript()),
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
    await pty.waitFor(/Got your note\.[\s\S]*› $/, { from: mark });
    const third = server.chatRequests[2]?.body?.messages ?? [];
    assert.equal(third.at(-1)?.role, "user");
    assert.equal(third.at(-1)?.content, "also check the logs");
    await pty.type("/exit\r");
    assert.equal(await pty.exited(), 0);
  },
});

Deno.test({
  name:
    "interactive mode: an ungranted call asks for approval on the terminal; y allows it, n denies it",
  ignore: !(await hasScript()),
  async fn() {
    await using server = await startFakeOpenAI();
    await using outside = await createTempWorkspace({ "note.txt": "outside note" });
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    server.script(
      reply.toolCalls([{ id: "c1", name: "read", arguments: { path: outside.path("note.txt") } }]),
      reply.text("Read it."),
      reply.toolCalls([{ id: "c2", name: "read", arguments: { path: outside.path("note.txt") } }]),
      reply.text("Could not."),
    );
    await using pty = startPty([Deno.execPath(), ...(await startArgv([]))], {
      cwd: ws.dir,
      env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    });
    await pty.waitFor(PROMPT);
    let mark = pty.output.length;
    await pty.type("read the note\r");
    await pty.waitFor(/moat wants to read .*note\.txt \(read\)\. Allow\?/, { from: mark });
    await pty.type("y\r");
    await pty.waitFor(/Read it\.[\s\S]*› $/, { from: mark });
    const second = server.chatRequests[1]?.body?.messages ?? [];
    assert.match(String(second.find((m) => m.role === "tool")?.content), /outside note/);

    mark = pty.output.length;
    await pty.type("again\r");
    await pty.waitFor(/Allow\?/, { from: mark });
    await pty.type("n\r");
    await pty.waitFor(/Could not\.[\s\S]*› $/, { from: mark });
    const fourth = server.chatRequests[3]?.body?.messages ?? [];
    assert.match(String(fourth.filter((m) => m.role === "tool").at(-1)?.content), /blocked by/);
    await pty.type("/exit\r");
    assert.equal(await pty.exited(), 0);
  },
});
