/** End-to-end: a dev server in a background job answers a later call, and ends with the run. */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, jsonLines, processesMatching, runMoat, toolResultOf } from "./_cli.ts";

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("print mode: a server started with background: true answers curl, then is stopped at the end", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  await Deno.writeTextFile(ws.path("index.html"), "served by the job\n");
  const port = freePort();
  const command = `python3 -u -m http.server ${port} --bind 127.0.0.1`;
  server.script(
    reply.toolCalls([{ id: "call_start", name: "bash", arguments: { command, background: true } }]),
    reply.toolCalls([{
      id: "call_wait",
      name: "job",
      arguments: { action: "wait", id: "1", pattern: "Serving HTTP", timeout: 20 },
    }]),
    reply.toolCalls([{
      id: "call_curl",
      name: "bash",
      arguments: { command: `curl -s --noproxy 127.0.0.1 http://127.0.0.1:${port}/index.html` },
    }]),
    reply.text("done"),
  );
  const out = await runMoat(["--allow-run", "serve and fetch"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  assert.equal(out.code, 0, out.stderr);
  // The "Serving HTTP" line came among the start's first lines: the wait still sees it.
  assert.match(toolResultOf(server, "call_wait"), /matched/);
  assert.match(toolResultOf(server, "call_start"), /Started job "1" in the background/);
  assert.equal(toolResultOf(server, "call_curl"), "served by the job");
  assert.match(
    out.stderr,
    new RegExp(`Stopped background job "1" \\(\`${command}\`\\) at the end of the run`),
  );
  assert.deepEqual(await processesMatching(`http.server ${port}`), [], "nothing outlives moat");
});

Deno.test("--output jsonl: job_start after the starting call, job_exit for an exit, a stop and the run's end", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  server.script(
    reply.toolCalls([
      { id: "call_a", name: "bash", arguments: { command: "echo a; exit 3", background: true } },
      { id: "call_b", name: "bash", arguments: { command: "sleep 600", background: true } },
      { id: "call_c", name: "bash", arguments: { command: "echo c; sleep 600", background: true } },
    ]),
    reply.toolCalls([
      { id: "call_wait", name: "job", arguments: { action: "wait", id: "1", timeout: 60 } },
      { id: "call_stop", name: "job", arguments: { action: "stop", id: "2" } },
    ]),
    reply.text("done"),
  );
  const out = await runMoat(["--allow-run", "--output", "jsonl", "--no-session", "jobs"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  assert.equal(out.code, 0, out.stderr);
  const events = jsonLines(out.stdout);
  const picked = events.flatMap((e): unknown[] => {
    if (e.type === "tool_end") return [`tool_end ${e.toolCallId}`];
    if (e.type === "run_end") return ["run_end"];
    if (e.type !== "job_start" && e.type !== "job_exit") return [];
    const { version: _v, time: _t, ...rest } = e;
    return [rest];
  });
  const exit = (id: string, toolCallId: string, command: string, rest: object) => ({
    type: "job_exit",
    id,
    command,
    toolCallId,
    ...rest,
  });
  const start = (id: string, toolCallId: string, command: string) => ({
    type: "job_start",
    id,
    command,
    toolCallId,
  });
  // Job 1 may end during its start (then its exit follows its start at once) or later.
  const first = picked.slice(0, 2);
  assert.deepEqual(first[0], "tool_end call_a");
  assert.deepEqual(first[1], start("1", "call_a", "echo a; exit 3"));
  const exitA = exit("1", "call_a", "echo a; exit 3", {
    end: "exited",
    exitCode: 3,
    signal: null,
    lastLines: "a",
  });
  const rest = picked.slice(2).filter((e) => JSON.stringify(e) !== JSON.stringify(exitA));
  assert.equal(picked.length - 2 - rest.length, 1, "job 1's exit is reported once");
  assert.deepEqual(rest, [
    "tool_end call_b",
    start("2", "call_b", "sleep 600"),
    "tool_end call_c",
    start("3", "call_c", "echo c; sleep 600"),
    "tool_end call_wait",
    "tool_end call_stop",
    exit("2", "call_b", "sleep 600", {
      end: "stopped",
      exitCode: null,
      signal: "SIGKILL",
      lastLines: "",
    }),
    exit("3", "call_c", "echo c; sleep 600", {
      end: "run_end",
      exitCode: null,
      signal: "SIGKILL",
      lastLines: "c",
    }),
    "run_end",
  ]);
  // Right after its start, or at the wait's end.
  const at = picked.findIndex((e) => JSON.stringify(e) === JSON.stringify(exitA));
  assert.ok(at === 2 || at === picked.indexOf("tool_end call_wait") + 1, JSON.stringify(picked));
});

Deno.test("a scoped --allow-net: a later call reaches a job's server on loopback, and still not the machine's", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  await Deno.writeTextFile(ws.path("index.html"), "served by the job\n");
  // A server on the machine's loopback, which the grants do not name.
  const outside = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("the machine's own server\n"),
  );
  const outsidePort = outside.addr.port;
  try {
    const port = freePort();
    const command = `python3 -u -m http.server ${port} --bind 127.0.0.1`;
    server.script(
      reply.toolCalls([{
        id: "call_start",
        name: "bash",
        arguments: { command, background: true },
      }]),
      reply.toolCalls([{
        id: "call_wait",
        name: "job",
        arguments: { action: "wait", id: "1", pattern: "Serving HTTP", timeout: 20 },
      }]),
      reply.toolCalls([
        {
          id: "call_ip",
          name: "bash",
          arguments: { command: `curl -s http://127.0.0.1:${port}/index.html` },
        },
        {
          id: "call_name",
          name: "bash",
          arguments: { command: `curl -s http://localhost:${port}/index.html` },
        },
        {
          id: "call_outside",
          name: "bash",
          arguments: { command: `curl -s -m 5 http://127.0.0.1:${outsidePort}/; echo "exit $?"` },
        },
      ]),
      reply.text("done"),
    );
    const out = await runMoat(["--allow-run", "--allow-net=example.com", "serve and fetch"], {
      cwd: ws.dir,
      env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    });
    assert.equal(out.code, 0, out.stderr);
    assert.match(toolResultOf(server, "call_wait"), /matched/);
    assert.equal(toolResultOf(server, "call_ip"), "served by the job");
    assert.equal(toolResultOf(server, "call_name"), "served by the job");
    assert.doesNotMatch(toolResultOf(server, "call_outside"), /machine's own server/);
    assert.match(toolResultOf(server, "call_outside"), /exit [1-9]/);
    // Grants that name the machine's loopback reach it, through the proxy.
    server.script(
      reply.toolCalls([{
        id: "call_granted",
        name: "bash",
        arguments: { command: `curl -s -m 5 http://127.0.0.1:${outsidePort}/` },
      }]),
      reply.text("done"),
    );
    const granted = await runMoat(
      ["--allow-run", `--allow-net=example.com,127.0.0.1:${outsidePort}`, "fetch"],
      {
        cwd: ws.dir,
        env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
      },
    );
    assert.equal(granted.code, 0, granted.stderr);
    assert.equal(toolResultOf(server, "call_granted"), "the machine's own server");
  } finally {
    await outside.shutdown();
  }
});
