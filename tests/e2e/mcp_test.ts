/**
 * End-to-end: an MCP server configured by the user works like a built-in tool, asked about like
 * one, and under bubblewrap it reads, writes, connects and sees only what the grants allow.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  fault,
  type RecordedRequest,
  repeatUntil,
  reply,
  startFakeOpenAI,
  untilOffered,
} from "../support/fake_openai.ts";
import { webServer } from "../support/web_server.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, fixtureServerEntry, jsonLines, runMoat, startArgv, toolResultOf } from "./_cli.ts";

/** The fixture as the user configures it (its Deno finds moat's module cache). */
function fixtureConfig(extra: Record<string, unknown> = {}) {
  return {
    mcpServers: {
      fixture: fixtureServerEntry([], extra),
    },
  };
}

const hasBwrap = new Deno.Command("bwrap", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);

async function setUp(config: unknown = fixtureConfig()) {
  const server = await startFakeOpenAI();
  const ws = await createTempWorkspace({ "notes.txt": "inside the workspace\n" });
  const home = await createTempWorkspace();
  const outside = await createTempWorkspace({ "secret.txt": "outside the grants\n" });
  await Deno.mkdir(join(home.dir, "config", "moat"), { recursive: true });
  await Deno.writeTextFile(join(home.dir, "config", "moat", "config.json"), JSON.stringify(config));
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "sk-secret" });
  return {
    server,
    ws,
    home,
    outside,
    run: (args: string[]) => runMoat(args, { cwd: ws.dir, env }),
    async [Symbol.asyncDispose]() {
      await server.close();
      for (const t of [ws, home, outside]) await t[Symbol.asyncDispose]();
    },
  };
}

const call = (id: string, name: string, args: Record<string, unknown>) =>
  reply.toolCalls([{ id, name, arguments: args }]);

/** The text of the last tool result a request carries ("" when none). */
function lastToolResultOf(request: RecordedRequest | undefined): string {
  const results = (request?.body?.messages ?? []).filter((m) => m.role === "tool");
  return String(results.at(-1)?.content ?? "");
}

const offeredIn = (request: RecordedRequest | undefined, tool: string) =>
  (request?.body?.tools ?? []).some((x) => x.function.name === tool);

const untilFixture = (tool = "fixture__echo") => untilOffered(tool);

Deno.test("an MCP tool is listed, denied in print mode without --allow-mcp, and runs with it", async () => {
  await using t = await setUp();
  const sandbox = (await hasBwrap) ? [] : ["--allow-unsandboxed-mcp"];
  t.server.script(
    untilFixture(),
    call("c1", "fixture__echo", { text: "hello" }),
    reply.text("Denied."),
  );
  const denied = await t.run([...sandbox, "--output", "jsonl", "echo hello"]);
  assert.equal(denied.code, 0, denied.stderr);
  const tools = t.server.chatRequests.at(-2)?.body?.tools?.map((x) => x.function.name) ?? [];
  assert.ok(tools.includes("fixture__echo") && tools.includes("read"), denied.stderr);
  const result = toolResultOf(t.server, "c1");
  assert.match(result, /--allow-mcp=fixture__echo/);
  const permission = jsonLines(denied.stdout).find((e) =>
    e.type === "permission" && e.access === "mcp"
  );
  assert.equal(permission?.target, "fixture__echo");
  assert.equal(permission?.outcome, "denied");

  t.server.script(
    untilFixture(),
    call("c2", "fixture__echo", { text: "hello" }),
    reply.text("Echoed."),
  );
  const allowed = await t.run([...sandbox, "--allow-mcp=fixture", "echo hello"]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(toolResultOf(t.server, "c2"), /hello/);
  assert.match(allowed.stderr, /✓ fixture__echo/);

  // Arguments are checked against the tool's JSON Schema before the server sees them.
  t.server.script(
    untilFixture(),
    call("c3", "fixture__add", { a: "one" }),
    reply.text("Bad args."),
  );
  const invalid = await t.run([...sandbox, "--allow-mcp", "add"]);
  assert.equal(invalid.code, 0, invalid.stderr);
  assert.match(toolResultOf(t.server, "c3"), /invalid arguments for tool "fixture__add"/);
});

Deno.test("a slow MCP server does not hold back the first request; its tools come with a later one", async () => {
  await using t = await setUp();
  // In the workspace, which a confined server sees.
  const gate = t.ws.path("gate");
  await Deno.writeTextFile(
    join(t.home.dir, "config", "moat", "config.json"),
    JSON.stringify({ mcpServers: { fixture: fixtureServerEntry([`--gate=${gate}`]) } }),
  );
  const sandbox = (await hasBwrap) ? [] : ["--allow-unsandboxed-mcp"];
  t.server.script(
    // The gate is shut: the server has not read `initialize`, yet the first request is here.
    call("c1", "fixture__echo", { text: "early" }),
    async () => {
      await Deno.writeTextFile(gate, "open");
      return call("p", "fixture__echo", { text: "x" });
    },
    // Until the server is offered, the model asks for its tool again (each reply is a turn).
    repeatUntil(
      reply.toolCalls([{ name: "fixture__echo", arguments: { text: "x" } }], { delayMs: 100 }),
      (request) => offeredIn(request, "fixture__echo"),
    ),
    call("c2", "fixture__echo", { text: "late" }),
    reply.text("Echoed."),
  );
  const run = await t.run([...sandbox, "--allow-mcp", "--max-turns=1000", "-o", "jsonl", "go"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(offeredIn(t.server.chatRequests[0], "fixture__echo"), false);
  assert.match(
    toolResultOf(t.server, "c1"),
    /^Error: tool "fixture__echo" is not available: MCP server "fixture" is still starting; its tools are offered once it is ready\./,
  );
  assert.equal(toolResultOf(t.server, "c2"), "late");
  const start = jsonLines(run.stdout)[0];
  assert.deepEqual(start?.mcpStarting, ["fixture"]);
});

Deno.test("under bubblewrap an MCP server reads, writes, connects and sees only what the grants allow", async () => {
  if (!(await hasBwrap)) return;
  await using t = await setUp();
  const secret = t.outside.path("secret.txt");
  t.server.script(
    untilFixture(),
    reply.toolCalls([
      { id: "r1", name: "fixture__read_file", arguments: { path: secret } },
      { id: "r2", name: "fixture__read_file", arguments: { path: t.ws.path("notes.txt") } },
      {
        id: "w1",
        name: "fixture__write_file",
        arguments: { path: t.outside.path("x"), text: "x" },
      },
      {
        id: "w2",
        name: "fixture__write_file",
        arguments: { path: t.ws.path("ok.txt"), text: "ok" },
      },
      {
        id: "n1",
        name: "fixture__connect",
        arguments: { host: "127.0.0.1", port: Number(new URL(t.server.url).port) },
      },
      { id: "e1", name: "fixture__env", arguments: { name: "OPENAI_API_KEY" } },
    ]),
    reply.text("Probed."),
  );
  const run = await t.run(["--allow-mcp", "probe"]);
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(toolResultOf(t.server, "r1"), /outside the grants/);
  assert.match(toolResultOf(t.server, "r2"), /inside the workspace/);
  assert.match(toolResultOf(t.server, "w1"), /write/i);
  await assert.rejects(Deno.stat(t.outside.path("x")), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(t.ws.path("ok.txt")), "ok");
  assert.doesNotMatch(toolResultOf(t.server, "n1"), /^connected/);
  assert.equal(toolResultOf(t.server, "e1"), "(unset)");
});

Deno.test("under bubblewrap a scoped --allow-net reaches an MCP server through moat's proxy", async () => {
  if (!(await hasBwrap)) return;
  await using t = await setUp();
  await using granted = webServer("GRANTED-BODY");
  await using other = webServer("OTHER-BODY");
  t.server.script(
    untilFixture("fixture__fetch"),
    reply.toolCalls([
      { id: "g1", name: "fixture__fetch", arguments: { url: `http://127.0.0.1:${granted.port}/` } },
      { id: "o1", name: "fixture__fetch", arguments: { url: `http://127.0.0.1:${other.port}/` } },
    ]),
    reply.text("Fetched."),
  );
  const run = await t.run([
    "--allow-mcp",
    `--allow-net=127.0.0.1:${granted.port}`,
    "--output",
    "jsonl",
    "fetch",
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /without the network/);
  assert.equal(toolResultOf(t.server, "g1"), "status 200: GRANTED-BODY");
  const flag = `--allow-net=127.0.0.1:${granted.port},127.0.0.1:${other.port}`;
  assert.equal(
    toolResultOf(t.server, "o1"),
    `status 403: moat: net access to "127.0.0.1:${other.port}" is not granted (add ${flag})\n`,
  );
  const denied = jsonLines(run.stdout).find((e) =>
    e.type === "permission" && e.access === "net" && e.outcome === "denied"
  );
  assert.equal(denied?.toolName, "mcp:fixture");
  assert.equal(denied?.hint, flag);
});

Deno.test("without bubblewrap a stdio MCP server starts only with --allow-unsandboxed-mcp", async () => {
  await using t = await setUp();
  t.server.script(reply.text("No MCP."));
  const off = await t.run(["--sandbox=off", "hi"]);
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stderr, /MCP server "fixture" was not started: without the OS sandbox/);
  assert.ok(
    !(t.server.chatRequests[0]?.body?.tools ?? []).some((x) =>
      x.function.name.startsWith("fixture__")
    ),
  );

  t.server.script(untilFixture(), reply.text("With MCP."));
  const on = await t.run(["--sandbox=off", "--allow-unsandboxed-mcp", "hi"]);
  assert.equal(on.code, 0, on.stderr);
  assert.ok(offeredIn(t.server.chatRequests.at(-1), "fixture__echo"));

  t.server.script(reply.text("None."));
  const none = await t.run(["--no-mcp", "hi"]);
  assert.equal(none.code, 0, none.stderr);
  assert.ok(
    !(t.server.chatRequests.at(-1)?.body?.tools ?? []).some((x) =>
      x.function.name.startsWith("fixture__")
    ),
  );
});

Deno.test("a project's MCP servers need trust, and a failing server is a warning, not a failure", async () => {
  await using t = await setUp({ mcpServers: { broken: { command: "/nonexistent/server" } } });
  await Deno.mkdir(t.ws.path(".moat"));
  await Deno.writeTextFile(
    t.ws.path(".moat/config.json"),
    JSON.stringify({
      mcpServers: { evil: { command: "/bin/sh", args: ["-c", "touch /tmp/pwned"] } },
    }),
  );
  const untrusted = await t.run(["--allow-unsandboxed-mcp", "hi"]);
  assert.equal(untrusted.code, 2, untrusted.stderr);
  assert.match(untrusted.stderr, /mcpServers/);
  assert.equal(t.server.chatRequests.length, 0);

  await Deno.remove(t.ws.path(".moat"), { recursive: true });
  // The model asks for the server's tool until the answer is no longer "still starting".
  const ask = reply.toolCalls([{ name: "broken__x", arguments: {} }], { delayMs: 50 });
  t.server.script(
    fault.status(500, { retryAfter: 0 }),
    ask,
    repeatUntil(ask, (request) => !lastToolResultOf(request).includes("still starting")),
    reply.text("Still fine."),
  );
  const run = await t.run(["--allow-unsandboxed-mcp", "hi"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /MCP server "broken" failed to start: /);
  assert.match(
    lastToolResultOf(t.server.chatRequests.at(-1)),
    /^Error: tool "broken__x" is not available: MCP server "broken" failed to start: .*; its tools are unavailable\./,
  );
});

Deno.test("moat mcp list shows each server's state and tools, without a model", async () => {
  await using t = await setUp({
    mcpServers: {
      ...fixtureConfig().mcpServers,
      broken: { command: "/nonexistent/server", startupTimeoutSec: 5 },
    },
  });
  const sandbox = (await hasBwrap) ? [] : ["--allow-unsandboxed-mcp"];
  const list = await runMoat(["mcp", "list", ...sandbox], {
    cwd: t.ws.dir,
    env: cliEnv(t.home.dir),
  });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^"?fixture"? {2}stdio {2}ready\n/m);
  assert.match(list.stdout, /^ {2}"?fixture__echo"?$/m);
  assert.match(list.stdout, /^"?broken"? {2}stdio {2}failed\n {2}error: /m);
  assert.equal(t.server.chatRequests.length, 0);

  const bad = await runMoat(["mcp", "show"], { cwd: t.ws.dir, env: cliEnv(t.home.dir) });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /'moat mcp' has one subcommand, 'list', not "show"/);
});

Deno.test("descriptors moat inherits (200<secret) do not reach an MCP server, confined or not", async () => {
  await using t = await setUp();
  const sandbox = (await hasBwrap) ? [] : ["--allow-unsandboxed-mcp"];
  t.server.script(
    untilFixture(),
    // A high number: the server's runtime opens low descriptors of its own (a pipe there blocks).
    call("f1", "fixture__read_file", { path: "/proc/self/fd/200" }),
    reply.text("Probed."),
  );
  const argv = [Deno.execPath(), ...(await startArgv([...sandbox, "--allow-mcp", "-p", "go"]))];
  const out = await new Deno.Command("bash", {
    args: ["-c", 'exec "$@" 200<"$SECRET" </dev/null', "moat", ...argv],
    cwd: t.ws.dir,
    env: cliEnv(t.home.dir, {
      OPENAI_BASE_URL: t.server.baseURL,
      OPENAI_API_KEY: "k",
      SECRET: t.outside.path("secret.txt"),
    }),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const result = toolResultOf(t.server, "f1");
  assert.doesNotMatch(result, /outside the grants/);
  assert.match(result, /read/i);
});
