/** The MCP client against the real stdio fixture, spawned through the SDK-speaking transport. */
import assert from "node:assert/strict";
import { type AnyTool, type ToolUpdate } from "../../src/agent/tool.ts";
import { createMcpClients, type McpClients } from "../../src/mcp/mod.ts";
import { stderrLines } from "../../src/mcp/stdio_transport.ts";
import {
  DENO_ENV_NAMES,
  fixtureServer,
  goneWithin,
  isRunning,
  recordingProcessOps,
  toolContext,
} from "./_helpers.ts";

interface Started extends AsyncDisposable {
  mcp: McpClients;
  pids: number[];
  warnings: string[];
  changed: string[];
  tool(name: string): AnyTool;
  call(
    name: string,
    args?: unknown,
    signal?: AbortSignal,
    updates?: ToolUpdate[],
  ): ReturnType<AnyTool["execute"]>;
}

async function start(
  servers = [fixtureServer()],
  options: { onToolsChanged?: (server: string) => void } = {},
): Promise<Started> {
  const ops = recordingProcessOps();
  const warnings: string[] = [];
  const changed: string[] = [];
  const mcp = createMcpClients(servers, {
    processOps: ops,
    path: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    onWarning: (w) => warnings.push(w),
    onToolsChanged: (s) => {
      changed.push(s);
      options.onToolsChanged?.(s);
    },
  });
  await mcp.start();
  const tool = (name: string) => {
    const found = mcp.tools().find((t) => t.name === name);
    assert.ok(found, `tool "${name}" among ${mcp.tools().map((t) => t.name).join(", ")}`);
    return found;
  };
  return {
    mcp,
    pids: ops.pids,
    warnings,
    changed,
    tool,
    call: (name, args = {}, signal = new AbortController().signal, updates = []) =>
      tool(name).execute(args, signal, toolContext(updates)),
    [Symbol.asyncDispose]: () => mcp.close(),
  };
}

Deno.test("stdio MCP tools are listed with their names, hints and results", async () => {
  await using s = await start([fixtureServer("fx", { env: { FIXTURE_FLAG: "on" } })]);
  const [status] = s.mcp.status();
  assert.equal(status?.state, "ready");
  assert.equal(status?.transport, "stdio");
  assert.ok(status?.tools.includes("fx__echo") && status.tools.includes("fx__add"));
  assert.deepEqual(s.mcp.tools().map((t) => t.name), status?.tools);
  assert.equal(s.tool("fx__echo").concurrencySafe, true);
  assert.equal(s.tool("fx__echo").label, "Echo");
  assert.equal(s.tool("fx__add").concurrencySafe, false);
  assert.deepEqual(await s.call("fx__echo", { text: "hello" }), {
    output: "hello",
    details: { server: "fx", tool: "echo" },
  });
  assert.equal((await s.call("fx__add", { a: 2, b: 3 })).output, "5");
  assert.equal((await s.call("fx__structured")).output, `{\n  "value": 42\n}`);
  assert.equal(
    (await s.call("fx__content")).output,
    "[Resource <file:///notes.txt> (text/plain)]\nnote body\n" +
      "[Resource link: big.log <file:///big.log> (text/plain)]\n" +
      "[Audio (audio/wav, 3 bytes) not shown: moat cannot pass audio to the model.]",
  );
  assert.deepEqual(s.warnings, []);
});

Deno.test("a stdio server gets PATH and its configured env, and nothing else of moat's", async () => {
  await using s = await start([fixtureServer("fx", { env: { FIXTURE_FLAG: "on" } })]);
  assert.equal((await s.call("fx__env", { name: "FIXTURE_FLAG" })).output, "on");
  assert.equal((await s.call("fx__env", { name: "PATH" })).output, Deno.env.get("PATH"));
  const given = new Set(["PATH", "NO_COLOR", "FIXTURE_FLAG", ...DENO_ENV_NAMES]);
  const leaked = Object.keys(Deno.env.toObject()).filter((k) => !given.has(k));
  for (const name of leaked.slice(0, 5)) {
    assert.equal((await s.call("fx__env", { name })).output, "(unset)", name);
  }
});

Deno.test("include and exclude choose which MCP tools are offered", async () => {
  await using s = await start([
    fixtureServer("inc", { tools: { include: ["echo", "add", "nope"] } }),
    fixtureServer("exc", { tools: { exclude: ["crash", "add_tool"] } }),
  ]);
  const [inc, exc] = s.mcp.status();
  assert.deepEqual(inc?.tools, ["inc__echo", "inc__add"]);
  assert.ok(exc !== undefined && exc.tools.length > 5);
  assert.ok(!exc.tools.includes("exc__crash") && !exc.tools.includes("exc__add_tool"));
  assert.ok(exc.tools.includes("exc__echo"));
});

Deno.test("argument problems are found before the call, against the server's schema", async () => {
  await using s = await start();
  const add = s.tool("fixture__add");
  assert.deepEqual(add.validateArguments!({ a: 1, b: 2 }), []);
  assert.deepEqual(add.validateArguments!({ a: "one" }), [
    "/: must have required property 'b'",
    "/a: must be number",
  ]);
});

Deno.test("an image result becomes an image block", async () => {
  await using s = await start();
  const result = await s.call("fixture__image");
  assert.equal(result.output, "a red pixel\n[Image: image/png]");
  assert.equal(result.content?.[1]?.type, "image");
  assert.deepEqual(result.content?.[1], {
    type: "image",
    data: (await import("../support/mcp_fixture_server.ts")).FIXTURE_PNG,
    mimeType: "image/png",
  });
});

Deno.test("progress notifications reach onUpdate", async () => {
  await using s = await start();
  const updates: ToolUpdate[] = [];
  const result = await s.call("fixture__slow", { ticks: 3 }, undefined, updates);
  assert.equal(result.output, "done after 3 ticks");
  // The SDK runs notification handlers a microtask later but drops a call's progress handler as
  // its result arrives: on a loaded machine the last ticks can come in one read with the result
  // and are then dropped. What arrives arrives in order, and the first tick always does.
  const expected = ["Progress 1/3: tick 1", "Progress 2/3: tick 2", "Progress 3/3: tick 3"];
  const texts = updates.map((u) => u.text);
  assert.ok(texts.length >= 1, "the first tick reaches onUpdate");
  assert.deepEqual(texts, expected.slice(0, texts.length));
});

Deno.test("aborting a call cancels it on the server", async () => {
  await using s = await start();
  const abort = new AbortController();
  const updates: ToolUpdate[] = [];
  const first = Promise.withResolvers<void>();
  const running = s.tool("fixture__slow").execute({}, abort.signal, {
    toolCallId: "c",
    onUpdate: (u) => {
      updates.push(u);
      first.resolve();
    },
  });
  await first.promise;
  abort.abort();
  const result = await running;
  assert.equal(result.isError, true);
  assert.equal(result.output, `The call to "slow" of MCP server "fixture" was cancelled`);
  assert.equal((await s.call("fixture__stats")).output, `{"cancelled":1}`);
});

Deno.test("a call that outlives the call timeout is cancelled with an error", async () => {
  const mcp = createMcpClients([fixtureServer()], {
    processOps: recordingProcessOps(),
    callTimeoutSec: 0.3,
  });
  try {
    await mcp.start();
    const tool = (name: string) => mcp.tools().find((t) => t.name === name)!;
    const signal = new AbortController().signal;
    const result = await tool("fixture__slow").execute({}, signal, toolContext());
    assert.deepEqual(result, {
      isError: true,
      output:
        `MCP server "fixture" did not answer the call to "slow" within 0.3 s; it was cancelled`,
      details: { server: "fixture", tool: "slow" },
    });
    assert.equal(
      (await tool("fixture__stats").execute({}, signal, toolContext())).output,
      `{"cancelled":1}`,
    );
  } finally {
    await mcp.close();
  }
});

Deno.test("a crash fails the call in flight, restarts once, and a second crash stops the server", async () => {
  await using s = await start();
  const firstPid = (await s.call("fixture__pid")).output;
  const crashed = await s.call("fixture__crash");
  assert.equal(crashed.isError, true);
  assert.equal(
    crashed.output,
    `MCP server "fixture" crashed during the call to "crash" (exited with code 3: fixture ` +
      `crashing on purpose); it restarts on the next call`,
  );
  assert.equal(s.mcp.status()[0]?.state, "crashed");
  assert.ok(s.mcp.tools().length > 0, "the tools stay offered: the next call restarts");

  const secondPid = (await s.call("fixture__pid")).output;
  assert.notEqual(secondPid, firstPid);
  assert.equal(s.mcp.status()[0]?.state, "ready");
  assert.equal(isRunning(Number(firstPid)), false);

  const again = await s.call("fixture__crash");
  assert.match(
    again.output,
    /crashed during the call to "crash" \(exited with code 3.*stays stopped$/,
  );
  const [status] = s.mcp.status();
  assert.equal(status?.state, "failed");
  assert.deepEqual(status?.tools, []);
  assert.match(status?.error ?? "", /^crashed again \(exited with code 3/);
  assert.deepEqual(s.mcp.tools(), [], "no tools are offered after the second crash");
  assert.equal(s.warnings.length, 2);
  assert.ok(s.changed.includes("fixture"));
});

Deno.test("a tool of a failed server answers with the reason", async () => {
  await using s = await start();
  const echo = s.tool("fixture__echo");
  await s.call("fixture__crash");
  await s.call("fixture__pid");
  await s.call("fixture__crash");
  const result = await echo.execute({ text: "x" }, new AbortController().signal, toolContext());
  assert.equal(result.isError, true);
  assert.match(result.output, /^MCP server "fixture" is not available: crashed again \(exited/);
});

Deno.test("a server that writes garbage at start fails with a warning", async () => {
  await using s = await start([fixtureServer("junk", { mode: "malformed" }), fixtureServer("ok")]);
  const [junk, ok] = s.mcp.status();
  assert.equal(junk?.state, "failed");
  assert.match(junk?.error ?? "", /^failed to start: sent a malformed message: /);
  assert.deepEqual(junk?.tools, []);
  assert.equal(ok?.state, "ready");
  assert.equal(s.warnings.length, 1);
  assert.match(
    s.warnings[0]!,
    /^MCP server "junk" failed to start: sent a malformed message: .*; its tools are unavailable$/,
  );
  assert.equal(isRunning(s.pids[0]!), false);
});

Deno.test("a server that never answers fails after its startup timeout, and is killed", async () => {
  await using s = await start([fixtureServer("mute", { mode: "hang", startupTimeoutSec: 1 })]);
  const [status] = s.mcp.status();
  assert.equal(status?.state, "failed");
  assert.equal(
    status?.error,
    `failed to start: no answer within 1 s (raise "startupTimeoutSec" if it is only slow)`,
  );
  assert.equal(s.pids.length, 1);
  assert.equal(isRunning(s.pids[0]!), false);
});

Deno.test("a server whose program does not exist fails with the reason", async () => {
  await using s = await start([{ ...fixtureServer("ghost"), command: "/nonexistent/mcp-server" }]);
  const [status] = s.mcp.status();
  assert.equal(status?.state, "failed");
  assert.match(
    status?.error ?? "",
    /^failed to start: could not start "\/nonexistent\/mcp-server": /,
  );
});

Deno.test("tools/list_changed refreshes the tools", async () => {
  const changed = Promise.withResolvers<string>();
  await using s = await start(undefined, { onToolsChanged: (server) => changed.resolve(server) });
  assert.equal(s.mcp.tools().some((t) => t.name === "fixture__late"), false);
  assert.equal((await s.call("fixture__add_tool", { name: "late" })).output, "added late");
  assert.equal(await changed.promise, "fixture");
  assert.equal((await s.call("fixture__late")).output, "dynamic tool late");
  assert.ok(s.mcp.status()[0]?.tools.includes("fixture__late"));
});

Deno.test("close() leaves no server process behind, grandchildren included", async () => {
  const s = await start([fixtureServer("a"), fixtureServer("b")]);
  const sleeper = Number((await s.call("a__spawn_sleeper")).output);
  const pids = [...s.pids, sleeper];
  assert.equal(pids.length, 3);
  for (const pid of pids) assert.equal(isRunning(pid), true, `${pid} runs before close()`);
  await s.mcp.close();
  // The servers were awaited; the grandchild was SIGKILLed with their group.
  for (const pid of s.pids) assert.equal(isRunning(pid), false, `${pid} is gone after close()`);
  assert.equal(await goneWithin(sleeper), true, `grandchild ${sleeper} is killed by close()`);
});

Deno.test("stderrLines() keeps the first lines of stderr on one line, without escapes or controls", () => {
  const stderr = "\x1b[31mError: cannot open\x1b[0m the db\r\n\n    at open (db.js:1:1)\x07\n" +
    "\x1b]0;title\x07line 3\n" + Array.from({ length: 10 }, (_, i) => `more ${i}`).join("\n");
  assert.equal(
    stderrLines(stderr),
    "Error: cannot open the db | at open (db.js:1:1) | line 3 | more 0 | more 1 | more 2 | " +
      "more 3 | more 4",
  );
});
