/**
 * End-to-end: a background job leaves no process behind however moat ends — SIGINT, SIGTERM,
 * kill -9 of moat, a crash of the tool host that runs the job, or the end of an interactive
 * session. Every process of the job carries a unique tag in its argv; the tests wait (bounded)
 * for none to remain.
 */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, jsonLines, processesMatching, spawnMoat, startArgv, waitUntil } from "./_cli.ts";
import { hasScript, startPty } from "./_pty.ts";
import { procChildren } from "../../src/sys/_proc_stat.ts";

type Ending = "SIGINT" | "SIGTERM" | "SIGKILL" | "host crash";

/** The tool hosts among the descendants of `root`. */
async function toolHostsUnder(root: number): Promise<number[]> {
  const hosts = new Set(await processesMatching("__tool-host"));
  const below: number[] = [];
  for (const stack = procChildren(root); stack.length > 0;) {
    const pid = stack.pop() as number;
    if (hosts.has(pid)) below.push(pid);
    stack.push(...procChildren(pid));
  }
  return below;
}

async function endWithJobRunning(ending: Ending, sandbox: "auto" | "off"): Promise<void> {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const tag = `tag-${crypto.randomUUID()}`;
  // The job's bash (its -c text names the tag), two children and a grandchild (argv0 the tag).
  const command = `for i in 1 2; do (exec -a ${tag} sleep 1000) & done; ` +
    `bash -c 'exec -a ${tag} sleep 1000' & wait # ${tag}`;
  server.script(
    reply.toolCalls([{ id: "call_job", name: "bash", arguments: { command, background: true } }]),
    reply.toolCalls([{
      id: "call_wait",
      name: "job",
      arguments: { action: "wait", id: "1", pattern: "never printed", timeout: 600 },
    }]),
    reply.text("done"),
  );
  const child = await spawnMoat([
    "--allow-run",
    `--sandbox=${sandbox}`,
    "--output",
    "jsonl",
    "keep it running",
  ], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  const output = child.output();
  try {
    await waitUntil(
      "the job's four processes and the wait",
      async () => (await processesMatching(tag)).length >= 4 && server.chatRequests.length >= 2,
    );
    if (ending === "host crash") {
      const hosts = await toolHostsUnder(child.pid);
      assert.ok(hosts.length > 0, "a tool host runs under moat");
      for (const pid of hosts) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch (e) {
          // Gone already: killed with another of the list (bwrap with the host it runs).
          if (!(e instanceof Deno.errors.NotFound)) throw e;
        }
      }
    } else {
      child.kill(ending);
    }
  } catch (e) {
    child.kill("SIGKILL");
    const out = await output;
    throw new Error(`${e}\nstderr: ${new TextDecoder().decode(out.stderr)}`);
  }
  const out = await output;
  const stderr = new TextDecoder().decode(out.stderr);
  const expected = { "SIGINT": 130, "SIGTERM": 143, "SIGKILL": 137, "host crash": 0 }[ending];
  if (ending === "SIGKILL") assert.equal(out.signal, "SIGKILL", stderr);
  else assert.equal(out.code, expected, stderr);
  if (ending === "SIGINT" || ending === "SIGTERM") {
    // The run's end stopped the job, and says so.
    const exits = jsonLines(new TextDecoder().decode(out.stdout)).filter((e) =>
      e.type === "job_exit"
    );
    assert.deepEqual(exits.map((e) => [e.id, e.end, e.signal]), [["1", "run_end", "SIGKILL"]]);
  }
  await waitUntil(
    `no process tagged "${tag}" to remain`,
    async () => (await processesMatching(tag)).length === 0,
    10_000,
  );
}

for (const sandbox of ["auto", "off"] as const) {
  const where = sandbox === "auto" ? "in bubblewrap" : "without bubblewrap";
  Deno.test(`a running job ${where}: SIGINT to moat (print mode) leaves no process behind`, async () => {
    await endWithJobRunning("SIGINT", sandbox);
  });

  Deno.test(`a running job ${where}: SIGTERM to moat (print mode) leaves no process behind`, async () => {
    await endWithJobRunning("SIGTERM", sandbox);
  });

  Deno.test(`a running job ${where}: kill -9 of moat leaves no process behind`, async () => {
    await endWithJobRunning("SIGKILL", sandbox);
  });
}

// Without bubblewrap the tools run in a Worker of moat's own process: there is no host to crash.
Deno.test("a running job in bubblewrap: a crash of its tool host leaves no process behind, and the run ends", async () => {
  await endWithJobRunning("host crash", "auto");
});

Deno.test({
  name: "interactive mode: a job lives for the session, /jobs lists it, and exiting kills it",
  ignore: !(await hasScript()),
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    const tag = `tag-${crypto.randomUUID()}`;
    const command = `bash -c 'exec -a ${tag} sleep 1000' & wait # ${tag}`;
    server.script(
      reply.toolCalls([{ id: "call_job", name: "bash", arguments: { command, background: true } }]),
      reply.text("Started it."),
      reply.text("Still here."),
    );
    await using pty = startPty([Deno.execPath(), ...(await startArgv(["--allow-run"]))], {
      cwd: ws.dir,
      env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    });
    await pty.waitFor(/› $/);
    let mark = pty.output.length;
    await pty.type("start it\r");
    await pty.waitFor(/Started it\.[\s\S]*› $/, { from: mark });
    // The turn ended; the job did not.
    mark = pty.output.length;
    await pty.type("anything else?\r");
    await pty.waitFor(/Still here\.[\s\S]*› $/, { from: mark });
    assert.equal((await processesMatching(tag)).length >= 1, true, "the job runs between turns");
    mark = pty.output.length;
    await pty.type("/jobs\r");
    await pty.waitFor(/Job "1"[^\n]*running[\s\S]*› $/, { from: mark });
    await pty.type("\x04");
    assert.equal(await pty.exited(), 0);
    await waitUntil(
      `no process tagged "${tag}" to remain`,
      async () => (await processesMatching(tag)).length === 0,
      10_000,
    );
  },
});
