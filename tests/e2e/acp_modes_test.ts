/**
 * End to end through the ACP SDK's client side: the user's permission sets as session modes
 * (each its own sandbox, refused mid-prompt), the trust question of a new session asked at its
 * first prompt, and images refused for a model without vision.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { connectMoat, toolUpdates } from "./_acp.ts";
import { cliEnv, processesMatching, toolResultOf, waitUntil } from "./_cli.ts";

const init: acp.InitializeRequest = {
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: {},
};

async function writeUserConfig(home: string, config: unknown): Promise<void> {
  await Deno.mkdir(join(home, "config", "moat"), { recursive: true });
  await Deno.writeTextFile(join(home, "config", "moat", "config.json"), JSON.stringify(config));
}

/** The text shown in session `sessionId`'s chat so far. */
function shownText(updates: readonly acp.SessionNotification[], sessionId: string): string {
  return updates.filter((n) => n.sessionId === sessionId).map((n) => n.update).map((u) =>
    u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""
  ).join("");
}

/**
 * Waits until session `sessionId` showed text matching `pattern`: the SDK's client hands a
 * notification to its handler after checking it, so one sent just before a prompt's answer may
 * reach the list just after the answer.
 */
async function shown(
  updates: readonly acp.SessionNotification[],
  sessionId: string,
  pattern: RegExp,
): Promise<void> {
  await waitUntil(`text matching ${pattern}`, () => pattern.test(shownText(updates, sessionId)));
}

/** The mode ids of the `current_mode_update`s sent so far in `sessionId`. */
function modeUpdates(updates: readonly acp.SessionNotification[], sessionId: string): string[] {
  return updates.filter((n) => n.sessionId === sessionId).map((n) => n.update).flatMap((u) =>
    u.sessionUpdate === "current_mode_update" ? [u.currentModeId] : []
  );
}

Deno.test("moat acp offers the user's permission sets as modes, each in its own sandbox", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({
    "a.txt": "a\n",
    "b.txt": "b\n",
    // An untrusted project's set is not offered.
    "deno.json": JSON.stringify({ permissions: { project: { write: true } } }),
  });
  await using home = await createTempWorkspace();
  await writeUserConfig(home.dir, {
    permissions: { docs: { read: true, write: ["b.txt"], run: true } },
  });
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  await using moat = await connectMoat(["--allow-write=a.txt"], ws.dir, env);
  await moat.agent.request(acp.methods.agent.initialize, init);
  const created = await moat.agent.request(acp.methods.agent.session.new, {
    cwd: ws.dir,
    mcpServers: [],
  });
  const sessionId = created.sessionId;
  assert.deepEqual(created.modes?.availableModes.map((m) => m.id), [
    "grants",
    "read-only",
    "set:docs",
  ]);
  const docs = created.modes?.availableModes.find((m) => m.id === "set:docs");
  assert.match(docs?.description ?? "", /user config.*--allow-write=b\.txt/);

  await moat.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "set:docs" });
  await waitUntil("the mode update", () => modeUpdates(moat.updates, sessionId).length === 1);
  assert.deepEqual(modeUpdates(moat.updates, sessionId), ["set:docs"]);
  const write = (id: string, path: string) =>
    reply.toolCalls([{ id, name: "write", arguments: { path, content: `${id}\n` } }]);
  const bash = (id: string, command: string) =>
    reply.toolCalls([{ id, name: "bash", arguments: { command } }]);
  // The set's grants: b.txt written without a question, a.txt asked (no answer: denied), and
  // bash's OS sandbox view built from them (a.txt is read-only in it).
  server.script(
    write("s1", "b.txt"),
    write("s2", "a.txt"),
    bash("s3", "echo bash > a.txt; echo bash >> b.txt"),
    reply.text("done"),
  );
  const first = await moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "write under the set" }],
  });
  assert.equal(first.stopReason, "end_turn", moat.stderr());
  assert.equal(await Deno.readTextFile(ws.path("b.txt")), "s1\nbash\n");
  assert.equal(await Deno.readTextFile(ws.path("a.txt")), "a\n");
  assert.equal(toolUpdates(moat.updates, "s2").at(-1)?.status, "failed");
  assert.ok(moat.questions.some((q) => q.toolCall.toolCallId === "s2"));
  assert.ok(!moat.questions.some((q) => q.toolCall.toolCallId === "s1"));
  assert.match(toolResultOf(server, "s3"), /a\.txt: Read-only file system/);

  // Mid-prompt the sandbox stays: a switch is refused while bash waits on a fifo.
  const fifo = `fifo-${Math.floor(Math.random() * 1e9)}`;
  await new Deno.Command("mkfifo", { args: [ws.path(fifo)] }).output();
  server.script(bash("c1", `cat ${fifo}`));
  const waiting = moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "wait" }],
  });
  await waitUntil(
    `"cat ${fifo}" to start`,
    async () => (await processesMatching(`cat ${fifo}`)).length > 0,
  );
  await assert.rejects(
    moat.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "grants" }),
    (e: Error) => /while a prompt runs/.test(e.message),
  );
  await moat.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  assert.equal((await waiting).stopReason, "cancelled");

  // Back to the launch grants: a.txt without a question, b.txt asked (and denied).
  await moat.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "grants" });
  await waitUntil("the mode update", () => modeUpdates(moat.updates, sessionId).length === 2);
  assert.deepEqual(modeUpdates(moat.updates, sessionId), ["set:docs", "grants"]);
  const asked = moat.questions.length;
  server.script(write("g1", "a.txt"), write("g2", "b.txt"), reply.text("done"));
  await moat.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "write under the grants" }],
  });
  assert.equal(await Deno.readTextFile(ws.path("a.txt")), "g1\n", toolResultOf(server, "g1"));
  assert.equal(await Deno.readTextFile(ws.path("b.txt")), "s1\nbash\n");
  assert.deepEqual(moat.questions.slice(asked).map((q) => q.toolCall.toolCallId), ["g2"]);

  const status = await moat.close();
  assert.equal(status.code, 0, moat.stderr());
  assert.deepEqual(await processesMatching(ws.dir), []);
});

Deno.test("moat acp asks about an untrusted project at a new session's first prompt, before any request", async () => {
  await using server = await startFakeOpenAI();
  const project = () =>
    createTempWorkspace({ ".moat/config.json": JSON.stringify({ headers: { "X-Project": "1" } }) });
  await using ignored = await project();
  await using once = await project();
  await using remembered = await project();
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  await using moat = await connectMoat([], home.dir, env);
  // Each question is asked before the prompt's model request.
  const requestsAtQuestion: number[] = [];
  moat.hooks.onQuestion = () => requestsAtQuestion.push(server.chatRequests.length);
  await moat.agent.request(acp.methods.agent.initialize, init);
  /** A new session in `cwd` and its first prompt: the project header sent, and the text shown. */
  const firstPrompt = async (cwd: string) => {
    const { sessionId } = await moat.agent.request(acp.methods.agent.session.new, {
      cwd,
      mcpServers: [],
    });
    server.script(reply.text("ok"));
    const before = server.chatRequests.length;
    const done = await moat.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    assert.equal(done.stopReason, "end_turn", moat.stderr());
    assert.equal(server.chatRequests.length, before + 1);
    return { header: server.chatRequests.at(-1)?.headers["x-project"], sessionId };
  };

  // No answer (the test editor cancels): not trusted, and the chat says so.
  const none = await firstPrompt(ignored.dir);
  assert.equal(none.header, undefined);
  await shown(moat.updates, none.sessionId, /sensitive settings \(headers\) were not trusted/);
  assert.equal(moat.questions.length, 1);
  const question = moat.questions[0];
  assert.equal(question?.toolCall.toolCallId, "moat-project-trust");
  assert.match(JSON.stringify(question?.toolCall.content), /X-Project/);
  assert.deepEqual(question?.options.map((o) => o.kind), [
    "allow_always",
    "allow_once",
    "reject_once",
  ]);

  moat.answers.push("once");
  assert.equal((await firstPrompt(once.dir)).header, "1", "trusted once: applied");
  moat.answers.push("remember");
  assert.equal((await firstPrompt(remembered.dir)).header, "1", "trusted always: applied");
  assert.deepEqual(requestsAtQuestion, [0, 1, 2], "asked before each first request");
  const config = JSON.parse(
    await Deno.readTextFile(join(home.dir, "config", "moat", "config.json")),
  );
  assert.deepEqual(config.trustedProjects, [remembered.dir]);
  // Remembered: a later session there is not asked again; the once-trusted one is.
  assert.equal((await firstPrompt(remembered.dir)).header, "1");
  assert.equal(moat.questions.length, 3);
  assert.equal((await firstPrompt(once.dir)).header, undefined, "no answer this time");
  assert.equal(moat.questions.length, 4);

  const status = await moat.close();
  assert.equal(status.code, 0, moat.stderr());
});

Deno.test("moat acp declares images only for a model with vision, and refuses them otherwise", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  await using moat = await connectMoat(["-m", "qwen2.5-coder"], ws.dir, env);
  const textOnly = await moat.agent.request(acp.methods.agent.initialize, init);
  assert.equal(textOnly.agentCapabilities?.promptCapabilities?.image, false);
  const pixel =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
  const withImage = async () => {
    const { sessionId } = await moat.agent.request(acp.methods.agent.session.new, {
      cwd: ws.dir,
      mcpServers: [],
    });
    const done = await moat.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "what is this?" },
        { type: "image", data: pixel, mimeType: "image/png" },
      ],
    });
    return { stopReason: done.stopReason, sessionId };
  };
  const refused = await withImage();
  assert.equal(refused.stopReason, "refusal", moat.stderr());
  await shown(
    moat.updates,
    refused.sessionId,
    /"qwen2\.5-coder" does not take images, so nothing was sent/,
  );
  assert.equal(server.chatRequests.length, 0);

  // The config says this model takes images: declared, and sent.
  await writeUserConfig(home.dir, { compat: { vision: true } });
  const vision = await moat.agent.request(acp.methods.agent.initialize, init);
  assert.equal(vision.agentCapabilities?.promptCapabilities?.image, true);
  server.script(reply.text("a red dot"));
  const sent = await withImage();
  assert.equal(sent.stopReason, "end_turn", moat.stderr());
  assert.match(
    JSON.stringify(server.chatRequests.at(-1)?.body?.messages),
    /data:image\/png;base64,iVBOR/,
  );

  const status = await moat.close();
  assert.equal(status.code, 0, moat.stderr());
});
