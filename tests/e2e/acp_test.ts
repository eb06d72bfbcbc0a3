/**
 * End to end: `moat acp` driven by the ACP SDK's own client side over stdio, against the fake
 * model server: a read, an edit, permissions answered in the editor, a cancelled bash call,
 * session/load, a malformed message and the client going away.
 */
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { type Answer, connectMoat, toolUpdates } from "./_acp.ts";
import { reply, startFakeOpenAI, untilOffered } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, fixtureServerEntry, processesMatching, toolResultOf, waitUntil } from "./_cli.ts";

Deno.test("moat acp serves an editor: tool calls, permissions, cancel, load, bad input, exit", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "a.txt": "hello\n" });
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  // Started elsewhere: the grants' paths are relative to each session's cwd.
  await using moat = await connectMoat(["--allow-write=a.txt", "--allow-run=cat"], home.dir, env);
  const init = await moat.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities?.loadSession, true);
  assert.equal(init.agentCapabilities?.promptCapabilities?.embeddedContext, true);
  const { sessionId } = await moat.agent.request(acp.methods.agent.session.new, {
    cwd: ws.dir,
    mcpServers: [],
  });

  // A read and an edit: kinds, locations, a diff.
  server.script(
    reply.toolCalls([{ id: "call_read", name: "read", arguments: { path: "a.txt" } }]),
    reply.toolCalls([{
      id: "call_edit",
      name: "edit",
      arguments: { path: "a.txt", edits: [{ oldText: "hello", newText: "bye" }] },
    }]),
    reply.text("edited"),
  );
  const first = await moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "change a.txt" }],
  });
  assert.equal(first.stopReason, "end_turn", moat.stderr());
  const read = toolUpdates(moat.updates, "call_read");
  assert.equal(read[0]?.kind, "read");
  assert.deepEqual(read[0]?.locations, [{ path: ws.path("a.txt") }]);
  assert.equal(read.at(-1)?.status, "completed");
  const edit = toolUpdates(moat.updates, "call_edit");
  assert.equal(edit[0]?.kind, "edit");
  assert.deepEqual(edit[0]?.locations, [{ path: ws.path("a.txt") }]);
  assert.deepEqual(edit.map((u) => u.status), ["pending", "in_progress", "completed"]);
  assert.deepEqual(edit.at(-1)?.content, [
    { type: "diff", path: ws.path("a.txt"), oldText: "hello", newText: "bye" },
  ]);
  assert.equal(await Deno.readTextFile(ws.path("a.txt")), "bye\n");
  const text = moat.updates.map((n) => n.update).filter((u) =>
    u.sessionUpdate === "agent_message_chunk"
  ).map((u) => u.content.type === "text" ? u.content.text : "").join("");
  assert.equal(text, "edited");

  // Permissions: reject, then "always" widens exactly the approved path.
  moat.answers.push("deny", "always", "deny", "deny");
  server.script(
    reply.toolCalls([{ id: "w1", name: "write", arguments: { path: "c.txt", content: "c" } }]),
    reply.toolCalls([{ id: "w2", name: "write", arguments: { path: "d.txt", content: "d" } }]),
    reply.toolCalls([{ id: "w3", name: "write", arguments: { path: "d.txt", content: "d2" } }]),
    // Two calls of one tool in one reply: each question names its own call.
    reply.toolCalls([
      { id: "w4", name: "write", arguments: { path: "e.txt", content: "e" } },
      { id: "w5", name: "write", arguments: { path: "f.txt", content: "f" } },
    ]),
    reply.text("written"),
  );
  const second = await moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "write files" }],
  });
  assert.equal(second.stopReason, "end_turn", moat.stderr());
  assert.deepEqual(
    moat.questions.map((q) => q.toolCall.toolCallId),
    ["w1", "w2", "w4", "w5"],
    "d.txt is asked about once; e.txt and f.txt again",
  );
  const kinds = moat.questions[0]?.options.map((o) => o.kind);
  assert.deepEqual(kinds, ["allow_once", "allow_always", "allow_always", "reject_once"]);
  assert.equal(toolUpdates(moat.updates, "w1").at(-1)?.status, "failed");
  assert.equal(toolUpdates(moat.updates, "w4").at(-1)?.status, "failed");
  await assert.rejects(Deno.stat(ws.path("c.txt")));
  await assert.rejects(Deno.stat(ws.path("e.txt")));
  assert.equal(await Deno.readTextFile(ws.path("d.txt")), "d2");

  // A bash call cancelled while it waits on a fifo: killed, stop reason cancelled.
  const fifo = `fifo-${Math.floor(Math.random() * 1e9)}`;
  await new Deno.Command("mkfifo", { args: [ws.path(fifo)] }).output();
  server.script(
    reply.toolCalls([{ id: "call_cat", name: "bash", arguments: { command: `cat ${fifo}` } }]),
    reply.text("not reached"),
  );
  const requestsBefore = server.chatRequests.length;
  const third = moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "wait" }],
  });
  await waitUntil(
    `"cat ${fifo}" to start`,
    async () => (await processesMatching(`cat ${fifo}`)).length > 0,
  );
  await moat.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  assert.equal((await third).stopReason, "cancelled");
  assert.deepEqual(await processesMatching(`cat ${fifo}`), []);
  assert.equal(server.chatRequests.length, requestsBefore + 1, "no request after the cancel");

  // session/load replays the session just written.
  const before = moat.updates.length;
  await moat.agent.request(acp.methods.agent.session.load, {
    sessionId,
    cwd: ws.dir,
    mcpServers: [],
  });
  const replayed = moat.updates.slice(before).map((n) => n.update);
  assert.deepEqual(
    replayed.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) =>
      u.content.type === "text" ? u.content.text : ""
    ),
    ["change a.txt", "write files", "wait"],
  );
  assert.ok(
    replayed.some((u) =>
      u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_edit" &&
      u.content?.[0]?.type === "diff"
    ),
  );

  // session/list names it, titled by its first prompt.
  assert.deepEqual(init.agentCapabilities?.sessionCapabilities?.list, {});
  const listed = await moat.agent.request(acp.methods.agent.session.list, { cwd: ws.dir });
  assert.deepEqual(
    listed.sessions.map((s) => [s.sessionId, s.cwd, s.title]),
    [[sessionId, ws.dir, "change a.txt"]],
  );

  // A malformed message gets an error response; the agent keeps serving.
  await moat.writeRaw("{not json\n");
  await waitUntil("the parse error", () => /"code":-32700/.test(moat.raw()));
  const again = await moat.agent.request(acp.methods.agent.session.new, {
    cwd: ws.dir,
    mcpServers: [],
  });
  assert.notEqual(again.sessionId, sessionId);

  // The client goes away: moat exits and leaves nothing running.
  const status = await moat.close();
  assert.equal(status.code, 0, moat.stderr());
  assert.deepEqual(await processesMatching(ws.dir), []);
  // stdout carried only protocol messages.
  for (const line of moat.raw().split("\n").filter((l) => l !== "")) {
    assert.equal(JSON.parse(line).jsonrpc, "2.0", line);
  }
});

Deno.test("moat acp offers /compact, reports usage, takes images, asks about trust on load", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  await using moat = await connectMoat(["--context-window=1000"], ws.dir, env);
  const init = await moat.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
  // A client asking for a version moat does not have gets the one it has.
  const future = await moat.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 7,
    clientCapabilities: {},
  });
  assert.equal(future.protocolVersion, 1);

  const { sessionId } = await moat.agent.request(acp.methods.agent.session.new, {
    cwd: ws.dir,
    mcpServers: [],
  });
  await waitUntil(
    "the commands",
    () =>
      moat.updates.some((n) =>
        n.sessionId === sessionId && n.update.sessionUpdate === "available_commands_update" &&
        n.update.availableCommands.some((c) => c.name === "compact")
      ),
  );

  server.script(reply.text("a red dot", { usage: { prompt_tokens: 100, completion_tokens: 5 } }));
  const pixel =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
  const answer = await moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [
      { type: "text", text: "what is this?" },
      { type: "image", data: pixel, mimeType: "image/png" },
    ],
  });
  assert.equal(answer.stopReason, "end_turn", moat.stderr());
  const sent = JSON.stringify(server.chatRequests.at(-1)?.body?.messages);
  assert.match(sent, /data:image\/png;base64,iVBOR/);
  // The SDK's client hands a notification to its handler after checking it, so the update sent
  // before the prompt's answer may reach the list just after the answer: wait for it to come.
  const usage = (n: acp.SessionNotification) =>
    n.update.sessionUpdate === "usage_update" && n.update.used === 105 && n.update.size === 1000;
  for (let i = 0; i < 500 && !moat.updates.some(usage); i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(moat.updates.some(usage));

  server.script(reply.text("The user asked about an image; it was a red dot."));
  const compacted = await moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "/compact" }],
  });
  assert.equal(compacted.stopReason, "end_turn", moat.stderr());
  assert.ok(
    !JSON.stringify(server.chatRequests.map((r) => r.body?.messages)).includes('"/compact"'),
    "/compact is a command, never sent as a prompt",
  );

  // The project gains sensitive settings: loading its session asks in the editor, both ways.
  await Deno.mkdir(ws.path(".moat"), { recursive: true });
  await Deno.writeTextFile(
    ws.path(".moat/config.json"),
    JSON.stringify({ headers: { "X-Project": "1" } }),
  );
  const headerAfterLoad = async (answer: Answer) => {
    moat.answers.push(answer);
    await moat.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: ws.dir,
      mcpServers: [],
    });
    assert.equal(moat.questions.at(-1)?.toolCall.toolCallId, "moat-project-trust");
    assert.match(JSON.stringify(moat.questions.at(-1)?.toolCall.content), /X-Project/);
    server.script(reply.text("ok"));
    await moat.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    return server.chatRequests.at(-1)?.headers["x-project"];
  };
  assert.equal(await headerAfterLoad("ignore"), undefined, "rejected: not applied");
  assert.equal(await headerAfterLoad("once"), "1", "allowed: applied");

  const status = await moat.close();
  assert.equal(status.code, 0, moat.stderr());
});

const hasBwrap = new Deno.Command("bwrap", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);

Deno.test("moat acp starts the editor's MCP servers like the user's own; their calls ask the editor", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const sandbox = (await hasBwrap) ? [] : ["--allow-unsandboxed-mcp"];
  await using moat = await connectMoat(sandbox, ws.dir, env);
  await moat.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const entry = fixtureServerEntry() as {
    command: string;
    args: string[];
    env: Record<string, string>;
  };
  const fixture: acp.McpServerStdio = {
    name: "fixture",
    command: entry.command,
    args: entry.args,
    env: Object.entries(entry.env).map(([name, value]) => ({ name, value })),
  };
  const { sessionId } = await moat.agent.request(acp.methods.agent.session.new, {
    cwd: ws.dir,
    mcpServers: [fixture],
  });
  moat.answers.push("once");
  server.script(
    untilOffered("fixture__echo"),
    reply.toolCalls([{ id: "m1", name: "fixture__echo", arguments: { text: "hello" } }]),
    reply.text("Echoed."),
  );
  const answer = await moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "echo hello" }],
  });
  assert.equal(answer.stopReason, "end_turn", moat.stderr());
  assert.deepEqual(moat.questions.map((q) => q.toolCall.toolCallId), ["m1"]);
  assert.match(toolResultOf(server, "m1"), /hello/);
  assert.equal(toolUpdates(moat.updates, "m1").at(-1)?.status, "completed");

  const status = await moat.close();
  assert.equal(status.code, 0, moat.stderr());
  assert.deepEqual(await processesMatching("mcp_fixture_server.ts"), []);
});

Deno.test("moat acp's read-only mode refuses a granted write without asking; grants mode allows it again", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "a.txt": "one\n" });
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  await using moat = await connectMoat(["--allow-write=a.txt"], ws.dir, env);
  await moat.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const created = await moat.agent.request(acp.methods.agent.session.new, {
    cwd: ws.dir,
    mcpServers: [],
  });
  const sessionId = created.sessionId;
  assert.equal(created.modes?.currentModeId, "grants");
  assert.deepEqual(created.modes?.availableModes.map((m) => m.id), ["grants", "read-only"]);
  await assert.rejects(
    moat.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "yolo" }),
  );
  await moat.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "read-only" });
  const write = (id: string, content: string) =>
    reply.toolCalls([{ id, name: "write", arguments: { path: "a.txt", content } }]);
  server.script(write("r1", "two\n"), reply.text("refused"));
  const refused = await moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "write" }],
  });
  assert.equal(refused.stopReason, "end_turn", moat.stderr());
  assert.equal(toolUpdates(moat.updates, "r1").at(-1)?.status, "failed");
  assert.match(toolResultOf(server, "r1"), /read-only mode/);
  assert.equal(await Deno.readTextFile(ws.path("a.txt")), "one\n");

  await moat.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "grants" });
  server.script(write("r2", "three\n"), reply.text("written"));
  await moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "write again" }],
  });
  assert.equal(await Deno.readTextFile(ws.path("a.txt")), "three\n");
  assert.deepEqual(moat.questions, [], "granted: nothing was asked in either mode");

  // An editor offering its files: reads get its buffer, writes go to it, after the same check.
  await moat.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  });
  const editing = await moat.agent.request(acp.methods.agent.session.new, {
    cwd: ws.dir,
    mcpServers: [],
  });
  moat.buffers.set(ws.path("a.txt"), "unsaved\n");
  server.script(
    reply.toolCalls([{ id: "b1", name: "read", arguments: { path: "a.txt" } }]),
    reply.toolCalls([{
      id: "b2",
      name: "edit",
      arguments: { path: "a.txt", edits: [{ oldText: "unsaved", newText: "edited" }] },
    }]),
    reply.toolCalls([{ id: "b3", name: "write", arguments: { path: "b.txt", content: "b" } }]),
    reply.text("done"),
  );
  await moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId: editing.sessionId,
    prompt: [{ type: "text", text: "use the buffer" }],
  });
  assert.match(toolResultOf(server, "b1"), /unsaved/);
  assert.deepEqual(moat.written, [[ws.path("a.txt"), "edited\n"]], "b.txt is not granted");
  assert.equal(await Deno.readTextFile(ws.path("a.txt")), "three\n", "moat left the disk alone");
  assert.equal(moat.questions.length, 1, "the ungranted write was asked about, and refused");
  await assert.rejects(Deno.stat(ws.path("b.txt")));

  const status = await moat.close();
  assert.equal(status.code, 0, moat.stderr());
});

Deno.test("SIGTERM to moat acp mid-call ends it with 143 and kills the call's processes", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  await using moat = await connectMoat(["--allow-run=cat"], ws.dir, env);
  await moat.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const { sessionId } = await moat.agent.request(acp.methods.agent.session.new, {
    cwd: ws.dir,
    mcpServers: [],
  });
  const fifo = `fifo-${Math.floor(Math.random() * 1e9)}`;
  await new Deno.Command("mkfifo", { args: [ws.path(fifo)] }).output();
  server.script(
    reply.toolCalls([{ id: "c", name: "bash", arguments: { command: `cat ${fifo}` } }]),
  );
  const pending = moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "wait" }],
  }).catch((e: Error) => e);
  await waitUntil(
    `"cat ${fifo}" to start`,
    async () => (await processesMatching(`cat ${fifo}`)).length > 0,
  );
  moat.child.kill("SIGTERM");
  const status = await moat.close();
  assert.equal(status.code, 143, moat.stderr());
  assert.equal(status.signal, null, "moat caught the signal and exited itself");
  assert.ok((await pending) instanceof Error, "the connection closed under the prompt");
  assert.deepEqual(await processesMatching(`cat ${fifo}`), []);
});
