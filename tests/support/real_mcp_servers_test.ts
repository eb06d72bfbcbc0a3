import assert from "node:assert/strict";
import { join } from "node:path";
import { pinnedVersions, REAL_MCP_PACKAGES, realMcpServers } from "./real_mcp_servers.ts";
import { createTempWorkspace } from "./workspace.ts";

/** Starts `argv` and returns the server's answer to `initialize` over stdio. */
async function initialize(argv: string[]): Promise<Record<string, unknown>> {
  const [command, ...args] = argv;
  const child = new Deno.Command(command as string, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "moat-test", version: "1" },
        },
      }) + "\n",
    ),
  );
  let buffered = "";
  const decoder = new TextDecoder();
  try {
    for await (const chunk of child.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      for (const line of buffered.split("\n").slice(0, -1)) {
        const message = JSON.parse(line) as Record<string, unknown>;
        if (message.id === 1) return message;
      }
    }
    throw new Error(`${argv.join(" ")} ended without answering: ${buffered}`);
  } finally {
    await writer.close().catch(() => {});
    try {
      child.kill("SIGTERM");
    } catch {
      // It ended already.
    }
    await child.stdout.cancel().catch(() => {});
    await child.status;
  }
}

Deno.test("pinnedVersions() reads the exact versions and refuses a range", async () => {
  const versions = await pinnedVersions();
  assert.deepEqual(Object.keys(versions), [...REAL_MCP_PACKAGES]);
  for (const v of Object.values(versions)) assert.match(v, /^\d+\.\d+\.\d+$/);
  await using dir = await createTempWorkspace({
    "deno.json": JSON.stringify({
      imports: Object.fromEntries(
        REAL_MCP_PACKAGES.map((
          p,
        ) => [p, p.endsWith("memory") ? `npm:${p}@^1.0.0` : `npm:${p}@1.0.0`]),
      ),
    }),
  });
  await assert.rejects(
    pinnedVersions(dir.path("deno.json")),
    /deno\.json does not pin "@modelcontextprotocol\/server-memory" to an exact version/,
  );
});

Deno.test("node runs each reference server from the install's node_modules (Deno's layout)", async () => {
  const s = await realMcpServers();
  assert.equal(await realMcpServers(), s);
  await using ws = await createTempWorkspace();
  const answers = await Promise.all([
    initialize([s.bin("mcp-server-everything")]),
    initialize(["node", s.bin("mcp-server-filesystem"), ws.dir]),
    initialize([
      "node",
      join(s.packageDir("@modelcontextprotocol/server-memory"), "dist/index.js"),
    ]),
  ]);
  for (const answer of answers) {
    const result = answer.result as { serverInfo?: { name?: string } } | undefined;
    assert.equal(typeof result?.serverInfo?.name, "string", JSON.stringify(answer));
  }
  // The install lives outside any workspace: in the temp root, not in moat's checkout.
  assert.ok(!s.dir.startsWith(new URL("../..", import.meta.url).pathname), s.dir);
});
