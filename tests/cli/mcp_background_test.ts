/**
 * MCP servers start once the first model request is answered, never before it: runCli with the
 * real stdio fixture
 * (held back by its gate file), an in-process model and, where timeouts matter, a manual clock.
 */
import assert from "node:assert/strict";
import { runCli } from "../../src/cli/main.ts";
import type { Clock } from "../../src/agent/mod.ts";
import type {
  AssistantMessage,
  ModelClient,
  ModelRequest,
  ToolResultMessage,
} from "../../src/model/types.ts";
import { unofferedMcpToolReason } from "../../src/cli/mcp_background.ts";
import type { McpServerStatus } from "../../src/mcp/mod.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { fixtureServer, goneWithin, isRunning, recordingProcessOps } from "../mcp/_helpers.ts";
import { scripted } from "../support/scripted_model.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { createFakeCliDeps, createFakeTerminal, createManualClock } from "./_fakes.ts";

/** A `--mcp-config` file with the gated fixture as server "slow". */
async function slowServerConfig(ws: TempWorkspace, gate: string, startupTimeoutSec: number) {
  const { command, args, env, cwd } = fixtureServer("slow", { gate });
  const file = ws.path("mcp.json");
  await Deno.writeTextFile(
    file,
    JSON.stringify({ mcpServers: { slow: { command, args, env, cwd, startupTimeoutSec } } }),
  );
  return file;
}

/** runCli in print mode (JSONL) with the fake sandbox, `model` and the real MCP processes. */
function runPrint(
  ws: TempWorkspace,
  argv: string[],
  options: { model: ModelClient; clock?: Clock },
) {
  const terminal = createFakeTerminal();
  const ops = recordingProcessOps();
  const { deps } = createFakeCliDeps({
    model: options.model,
    over: { createMcpProcessOps: () => ops },
  });
  const code = runCli(["--no-session", "--allow-unsandboxed-mcp", "-o", "jsonl", ...argv], {
    env: { HOME: ws.dir, OPENAI_API_KEY: "k" },
    cwd: ws.dir,
    terminal,
    deps,
    fs: createDenoCliFs(),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return { code, terminal, pids: ops.pids };
}

const namesOf = (request: ModelRequest) => request.tools.map((t) => t.name);

/** The text of the result of call `id` in `request`. */
function resultIn(request: ModelRequest | undefined, id: string): string {
  for (const m of request?.messages ?? []) {
    if (m.role !== "toolResult") continue;
    const found = (m as ToolResultMessage).results.find((r) => r.toolCallId === id);
    if (found !== undefined) return String(found.content);
  }
  return assert.fail(`no result for ${id}`);
}

/** Polls `predicate` with short real waits (the process side runs on its own). */
async function until(predicate: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (let waited = 0; waited < ms; waited += 10) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

const STILL_STARTING = 'Error: tool "slow__echo" is not available: MCP server "slow" is still ' +
  "starting; its tools are offered once it is ready.";

/** A model whose reply to request n is `step(request, n)`; it records every request. */
function modelOf(
  step: (request: ModelRequest, n: number) => Promise<AssistantMessage> | AssistantMessage,
) {
  const requests: ModelRequest[] = [];
  const model: ModelClient = {
    stream(request) {
      requests.push(structuredClone(request));
      return Promise.resolve(step(request, requests.length));
    },
  };
  return { model, requests };
}

Deno.test("a slow MCP server does not hold back the first model request: it starts once that is answered, its tools come with a later one", async () => {
  await using ws = await createTempWorkspace();
  const gate = ws.path("gate");
  const config = await slowServerConfig(ws, gate, 60);
  let spawnedBefore: number | undefined;
  let running: boolean | undefined;
  const { model, requests } = modelOf(async (request, n) => {
    const offered = namesOf(request).includes("slow__echo");
    if (n === 1) {
      // Nothing of the servers runs before the first request: it goes out at once.
      assert.equal(offered, false);
      spawnedBefore = run.pids.length;
      return scripted.toolCalls([{ id: "c1", name: "slow__echo", args: { text: "early" } }]);
    }
    if (n === 2) {
      const c1 = resultIn(request, "c1");
      assert.ok(c1.startsWith(STILL_STARTING), c1);
      // Begun once request 1 was answered; the gate is shut, so it is still starting.
      await until(() => run.pids.length === 1, "the spawn");
      running = isRunning(run.pids[0] as number);
      await Deno.writeTextFile(gate, "open");
    }
    if (
      request.messages.some((m) =>
        m.role === "toolResult" && m.results.some((r) => r.toolCallId === "c2")
      )
    ) {
      return scripted.text("done");
    }
    if (offered) {
      return scripted.toolCalls([{ id: "c2", name: "slow__echo", args: { text: "late" } }]);
    }
    // Not offered yet: ask again a little later (each reply is a turn).
    await new Promise((resolve) => setTimeout(resolve, 20));
    return scripted.toolCalls([{ id: `p${n}`, name: "slow__echo", args: { text: "x" } }]);
  });
  const run = runPrint(ws, ["--mcp-config", config, "--allow-mcp=slow", "--max-turns=1000", "go"], {
    model,
  });
  assert.equal(await run.code, 0, run.terminal.stderr);
  assert.equal(spawnedBefore, 0, "no server was spawned before the first request");
  assert.equal(running, true, "the server was spawned once the first request was answered");
  const first = requests.findIndex((r) => namesOf(r).includes("slow__echo"));
  assert.ok(first >= 2, "offered from a later request on");
  assert.equal(resultIn(requests.at(-1), "c2"), "late");
  const runStart = JSON.parse(run.terminal.stdout.split("\n")[0] as string);
  assert.equal(runStart.type, "run_start");
  assert.deepEqual(runStart.mcpStarting, ["slow"]);
  assert.deepEqual(runStart.tools, []);
  for (const pid of run.pids) assert.equal(await goneWithin(pid), true, `${pid} is gone`);
});

const eventsOf = (stdout: string) =>
  stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);

Deno.test("a server that times out in the background warns during the run, which goes on", async () => {
  await using ws = await createTempWorkspace();
  // The gate never opens: the server never answers.
  const config = await slowServerConfig(ws, ws.path("gate"), 60);
  const clock = createManualClock();
  const { model } = modelOf(async (_request, n) => {
    if (n === 1) {
      assert.deepEqual(eventsOf(run.terminal.stdout).map((e) => e.type), [
        "run_start",
        "turn_start",
      ]);
      return scripted.toolCalls([{ id: "c1", name: "slow__echo", args: { text: "early" } }]);
    }
    // Spawned once request 1 was answered: its 60 s pass now, while this request waits.
    await until(() => run.pids.length === 1, "the spawn");
    clock.tick(60_000);
    await until(() => run.terminal.stdout.includes('"warning"'), "the warning");
    return scripted.text("done");
  });
  const run = runPrint(ws, ["--mcp-config", config, "go"], { model, clock });
  assert.equal(await run.code, 0, run.terminal.stderr);
  const events = eventsOf(run.terminal.stdout);
  const types = events.map((e) => e.type);
  assert.deepEqual(types.slice(-4), ["turn_start", "warning", "message_end", "run_end"]);
  assert.match(
    String(events.at(-3)?.message),
    /^MCP server "slow" failed to start: no answer within 60 s \(raise "startupTimeoutSec"/,
  );
  for (const pid of run.pids) assert.equal(await goneWithin(pid), true, `${pid} is gone`);
});

Deno.test("a run that ends while a server is still starting closes it: no process is left", async () => {
  await using ws = await createTempWorkspace();
  const config = await slowServerConfig(ws, ws.path("gate"), 60);
  let running: boolean | undefined;
  const { model } = modelOf(async (_request, n) => {
    if (n === 1) return scripted.toolCalls([{ id: "c1", name: "slow__echo", args: { text: "x" } }]);
    await until(() => run.pids.length === 1, "the spawn");
    running = isRunning(run.pids[0] as number);
    return scripted.text("done");
  });
  const run = runPrint(ws, ["--mcp-config", config, "go"], { model });
  assert.equal(await run.code, 0, run.terminal.stderr);
  assert.equal(running, true, "the server was still starting during the run");
  assert.equal(run.pids.length, 1);
  for (const pid of run.pids) assert.equal(await goneWithin(pid), true, `${pid} is gone`);
  // Closing a server that was never ready is no failure to warn about.
  assert.doesNotMatch(run.terminal.stderr, /warning/);
});

Deno.test("a run that ends with its first reply never spawns its MCP servers", async () => {
  await using ws = await createTempWorkspace();
  const config = await slowServerConfig(ws, ws.path("gate"), 60);
  const { model, requests } = modelOf(() => scripted.text("done"));
  const run = runPrint(ws, ["--mcp-config", config, "go"], { model });
  assert.equal(await run.code, 0, run.terminal.stderr);
  assert.equal(requests.length, 1);
  assert.deepEqual(run.pids, []);
});

Deno.test("moat mcp list waits for a slow server and shows it ready", async () => {
  await using ws = await createTempWorkspace();
  const gate = ws.path("gate");
  const config = await slowServerConfig(ws, gate, 60);
  const terminal = createFakeTerminal();
  const ops = recordingProcessOps();
  const { deps } = createFakeCliDeps({
    over: {
      createMcpProcessOps: () => ({
        spawn(command) {
          const spawned = ops.spawn(command);
          // The server finds its gate open once it has started: a slow start, not a hung one.
          Deno.writeTextFileSync(gate, "open");
          return spawned;
        },
      }),
    },
  });
  const code = await runCli(
    ["mcp", "list", "--allow-unsandboxed-mcp", "--mcp-config", config],
    { env: { HOME: ws.dir }, cwd: ws.dir, terminal, deps, fs: createDenoCliFs() },
  );
  assert.equal(code, 0, terminal.stderr);
  assert.match(
    terminal.stdout,
    /^"?slow"? {2}stdio {2}ready\n(?: {2}can: .*\n)? {2}"?slow__echo"?$/m,
  );
  for (const pid of ops.pids) assert.equal(await goneWithin(pid), true, `${pid} is gone`);
});

Deno.test("unofferedMcpToolReason() says why a server's tool was not offered, and nothing for other names", () => {
  const status = (name: string, state: McpServerStatus["state"], extra = {}): McpServerStatus => ({
    name,
    transport: "stdio",
    state,
    tools: [],
    ...extra,
  });
  const statuses = [
    status("a", "starting"),
    status("a__b", "ready", { tools: ["a__b__x"] }),
    status("r", "starting", { tools: ["r__x"] }),
    status("f", "failed", { error: "failed to start: no answer within 10 s" }),
  ];
  const reason = (name: string) => unofferedMcpToolReason(statuses, name);
  assert.equal(
    reason("a__x"),
    'MCP server "a" is still starting; its tools are offered once it is ready',
  );
  // The longest server name wins; a tool it lists now came after the request.
  assert.equal(
    reason("a__b__x"),
    'MCP server "a__b" started offering it after this request was sent; it is offered from the next request on',
  );
  assert.equal(reason("a__b__y"), undefined, "a ready server does not have that tool");
  assert.equal(reason("r__y"), undefined, "a restarting server keeps its tools offered");
  assert.equal(
    reason("f__x"),
    'MCP server "f" failed to start: no answer within 10 s; its tools are unavailable',
  );
  assert.equal(reason("read"), undefined);
  assert.equal(reason("z__x"), undefined);
});
