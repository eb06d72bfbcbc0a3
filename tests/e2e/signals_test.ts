/** End-to-end: SIGINT/SIGTERM during a long bash call abort the run, kill it and save the session. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, processesMatching, sessionFiles, spawnMoat, waitUntil } from "./_cli.ts";

async function interruptDuringSleep(signal: "SIGINT" | "SIGTERM", expected: number) {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  // A unique duration, so only this test's sleep is matched.
  const needle = `sleep 300.${signal === "SIGINT" ? "4171" : "4173"}${
    Math.floor(Math.random() * 1e6)
  }`;
  server.script(
    reply.toolCalls([{ id: "call_sleep", name: "bash", arguments: { command: needle } }]),
    reply.text("not reached"),
  );
  const child = await spawnMoat(["--allow-run=sleep", "wait a while"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  const output = child.output();
  try {
    await waitUntil(
      `"${needle}" to start`,
      async () => (await processesMatching(needle)).length > 0,
    );
  } catch (e) {
    child.kill("SIGKILL");
    const out = await output;
    throw new Error(`${e}\nstderr: ${new TextDecoder().decode(out.stderr)}`);
  }
  child.kill(signal);
  const out = await output;
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, expected, stderr);
  assert.equal(new TextDecoder().decode(out.stdout), "");
  // Nothing the call started survives moat.
  await waitUntil(
    "the sleep to be gone",
    async () => (await processesMatching(needle)).length === 0,
    3000,
  );
  assert.equal(server.chatRequests.length, 1, "no request after the interrupt");
  // The session holds the prompt and the call, and loads into a consistent history.
  const files = await sessionFiles(join(home.dir, "state"));
  assert.equal(files.length, 1);
  const lines = (await Deno.readTextFile(files[0] as string)).trimEnd().split("\n").map((l) =>
    JSON.parse(l)
  );
  assert.equal(lines[0].type, "session");
  assert.deepEqual(lines.slice(1).map((l) => l.message.role).slice(0, 2), ["user", "assistant"]);
}

Deno.test("SIGINT during a sleep 300 bash call exits 130, kills the sleep and saves the session", async () => {
  await interruptDuringSleep("SIGINT", 130);
});

Deno.test("SIGTERM during a sleep 300 bash call exits 143 and kills the sleep", async () => {
  await interruptDuringSleep("SIGTERM", 143);
});
