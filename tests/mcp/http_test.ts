/** The MCP client against the fixture served in-process over streamable HTTP by the SDK. */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Server } from "@modelcontextprotocol/sdk/server";
import { createMcpClients, type McpHttpServer } from "../../src/mcp/mod.ts";
import { createFixtureServer } from "../support/mcp_fixture_server.ts";
import { recordingProcessOps, toolContext } from "./_helpers.ts";

async function serveFixture() {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  const server = createFixtureServer();
  await server.connect(transport);
  const authorizations: Array<string | null> = [];
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    authorizations.push(request.headers.get("authorization"));
    return transport.handleRequest(request);
  });
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    authorizations,
    async [Symbol.asyncDispose]() {
      await server.close();
      await http.shutdown();
    },
  };
}

function httpServer(url: string, extra: Partial<McpHttpServer> = {}): McpHttpServer {
  return {
    name: "web",
    type: "http",
    url,
    headers: {},
    tools: {},
    startupTimeoutSec: 10,
    ...extra,
  };
}

Deno.test("an HTTP MCP server's tools are listed and called, with the configured headers", async () => {
  await using fixture = await serveFixture();
  const mcp = createMcpClients(
    [httpServer(fixture.url, { headers: { Authorization: "Bearer t0ken" } })],
    { processOps: recordingProcessOps() },
  );
  try {
    await mcp.start();
    const [status] = mcp.status();
    assert.equal(status?.state, "ready");
    assert.equal(status?.transport, "http");
    assert.ok(status?.tools.includes("web__echo"));
    const echo = mcp.tools().find((t) => t.name === "web__echo")!;
    const result = await echo.execute(
      { text: "over http" },
      new AbortController().signal,
      toolContext(),
    );
    assert.deepEqual(result, { output: "over http", details: { server: "web", tool: "echo" } });
    const updates: { text: string }[] = [];
    const slow = mcp.tools().find((t) => t.name === "web__slow")!;
    assert.equal(
      (await slow.execute({ ticks: 2 }, new AbortController().signal, toolContext(updates))).output,
      "done after 2 ticks",
    );
    assert.deepEqual(updates.map((u) => u.text), ["Progress 1/2: tick 1", "Progress 2/2: tick 2"]);
  } finally {
    await mcp.close();
  }
  assert.ok(fixture.authorizations.length > 0);
  assert.ok(fixture.authorizations.every((a) => a === "Bearer t0ken"));
});

Deno.test("an HTTP MCP server that is not there fails to start with the reason", async () => {
  // A port that was just free: nothing listens on it once the listener is closed.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const warnings: string[] = [];
  const mcp = createMcpClients([httpServer(`http://127.0.0.1:${port}/mcp`)], {
    processOps: recordingProcessOps(),
    onWarning: (w) => warnings.push(w),
  });
  try {
    await mcp.start();
    const [status] = mcp.status();
    assert.equal(status?.state, "failed");
    assert.match(status?.error ?? "", /^failed to start: fetch failed: .*Connection refused/);
    assert.equal(warnings.length, 1);
  } finally {
    await mcp.close();
  }
});

Deno.test("MCP tools whose names clash after sanitising are both offered, the later one hashed", async () => {
  const server = new Server({ name: "clash", version: "1" }, { capabilities: { tools: {} } });
  const tools = ["a.b", "a_b"].map((name) => ({ name, inputSchema: { type: "object" as const } }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  await server.connect(transport);
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => transport.handleRequest(request),
  );
  const mcp = createMcpClients(
    [httpServer(`http://127.0.0.1:${http.addr.port}/mcp`)],
    { processOps: recordingProcessOps() },
  );
  try {
    await mcp.start();
    const names = mcp.status()[0]?.tools ?? [];
    assert.equal(names.length, 2);
    assert.equal(names[0], "web__a_b");
    assert.match(names[1] ?? "", /^web__a_b_[0-9a-f]{8}$/);
    assert.deepEqual(mcp.tools().map((t) => t.name), names);
  } finally {
    await mcp.close();
    await server.close();
    await http.shutdown();
  }
});
