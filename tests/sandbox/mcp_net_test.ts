/**
 * An MCP server's network in the OS sandbox: with a `net` grant (or a scoped --allow-net) it runs
 * in its own network namespace behind a forwarder and reaches exactly its hosts through a proxy
 * of its own, whose refusals name the flag and are reported as decisions of `mcp:<server>`;
 * without one it has no network; closing the server and the sandbox leaves nothing running.
 */
import assert from "node:assert/strict";
import { createMcpClients, type McpClients } from "../../src/mcp/mod.ts";
import type { PermissionDecision } from "../../src/policy/check.ts";
import type { Sandbox } from "../../src/sandbox/mod.ts";
import { defaultGrants, type Grants, parseGrantFlags } from "../support/grants.ts";
import { webServer } from "../support/web_server.ts";
import { fixtureServer, recordingProcessOps, toolContext } from "../mcp/_helpers.ts";
import { BWRAP, callTool, createLayout, openSandbox, textOf } from "./_helpers.ts";

function mcpNetTest(name: string, fn: () => Promise<void>) {
  Deno.test({ name: `[bwrap] MCP server net: ${name}`, ignore: !BWRAP, fn });
}

/** The fixture server confined by `sb` with `net`, started; its tools by name, and closing. */
async function startConfined(
  sb: Sandbox,
  options: { net?: string[]; marker: string },
): Promise<{ call(tool: string, args: Record<string, unknown>): Promise<string> } & McpClients> {
  // No update check of its Deno: that would be a connection the proxy decides too.
  const env = { MOAT_TEST_MARKER: options.marker, DENO_NO_UPDATE_CHECK: "1" };
  const server = fixtureServer("web", { env });
  const confined = sb.confine({
    command: [server.command, ...server.args],
    env: { ...sb.toolEnv(), ...server.env },
    cwd: server.cwd ?? "/",
    name: server.name,
    ...(options.net === undefined ? {} : { net: options.net }),
  });
  assert.ok(confined !== undefined && "argv" in confined, JSON.stringify(confined));
  const [bwrap, ...args] = confined.argv;
  const warnings: string[] = [];
  const clients = createMcpClients([server], {
    processOps: recordingProcessOps(),
    stdioCommand: () => ({ command: bwrap as string, args, env: { PATH: "/usr/bin:/bin" } }),
    onWarning: (w) => warnings.push(w),
  });
  await clients.start();
  assert.equal(clients.status()[0]?.state, "ready", warnings.join("\n"));
  return Object.assign(clients, {
    async call(tool: string, args: Record<string, unknown>) {
      const found = clients.tools().find((t) => t.name === `web__${tool}`);
      assert.ok(found, tool);
      const out = await found.execute(args, new AbortController().signal, toolContext());
      return out.output;
    },
  });
}

/** Processes of this machine whose environment holds `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      if (Deno.readTextFileSync(`/proc/${entry.name}/environ`).includes(marker)) {
        found.push(Number(entry.name));
      }
    } catch { /* gone, or not ours */ }
  }
  return found;
}

function scopedNet(ws: string, hosts: string): Grants {
  const parsed = parseGrantFlags({ "allow-net": hosts }, { cwd: ws });
  if (!parsed.ok) throw parsed.error;
  return parsed.grants;
}

mcpNetTest("a net grant reaches its host through the proxy, and nothing else", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  await using granted = webServer("GRANTED-BODY");
  await using other = webServer("OTHER-BODY");
  const decisions: PermissionDecision[] = [];
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws), {
    onDecision: (d) => decisions.push(d),
  });
  const marker = crypto.randomUUID();
  try {
    const server = await startConfined(sb, { net: [`127.0.0.1:${granted.port}`], marker });
    try {
      assert.equal(
        await server.call("fetch", { url: `http://127.0.0.1:${granted.port}/` }),
        "status 200: GRANTED-BODY",
      );
      assert.equal(
        await server.call("fetch", { url: `http://127.0.0.1:${other.port}/` }),
        `status 403: moat: net access to "127.0.0.1:${other.port}" is not granted ` +
          `(add --allow-net=127.0.0.1:${other.port})\n`,
      );
      // Around the proxy: the server's own loopback has nothing on that port.
      assert.match(
        await server.call("connect", { host: "127.0.0.1", port: granted.port }),
        /^connect failed/,
      );
      assert.match(
        await server.call("env", { name: "HTTPS_PROXY" }),
        /^http:\/\/127\.0\.0\.1:\d+$/,
      );
      assert.match(await server.call("env", { name: "npm_config_https_proxy" }), /^http:\/\//);
      assert.equal(await server.call("env", { name: "MOAT_MCP_FORWARD" }), "(unset)");
      // Its proxy's socket is in the spill directory, which bash sees: bash gets nothing there.
      const socket = [...Deno.readDirSync(layout.spill)].find((e) => e.name.endsWith(".sock"));
      assert.ok(socket);
      const probe = await callTool(sb, "bash", {
        command: `/usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_UNIX); ` +
          `s.connect('${layout.spill}/${socket.name}'); ` +
          `s.sendall(b'GET http://127.0.0.1:${granted.port}/ HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'); ` +
          `s.shutdown(socket.SHUT_WR); print('got', repr(s.recv(1000)))"`,
      }).then(textOf);
      assert.match(probe, /got b''/);
      // The forwarder and the server.
      assert.ok(processesWith(marker).length >= 2, "the server runs behind its forwarder");
    } finally {
      await server.close();
    }
  } finally {
    await sb.close();
  }
  assert.deepEqual(processesWith(marker), [], "no forwarder or server is left");
  assert.deepEqual(
    [...Deno.readDirSync(layout.spill)].filter((e) => e.name.endsWith(".sock")),
    [],
    "the proxy's socket is gone",
  );
  const net = decisions.filter((d) => d.access === "net");
  assert.deepEqual(net, [
    {
      toolCallId: "",
      toolName: "mcp:web",
      access: "net",
      target: `127.0.0.1:${granted.port}`,
      by: "grants",
      during: true,
      outcome: "granted",
    },
    {
      toolCallId: "",
      toolName: "mcp:web",
      access: "net",
      target: `127.0.0.1:${other.port}`,
      by: "grants",
      during: true,
      outcome: "denied",
      reason: `net access to "127.0.0.1:${other.port}" is not granted ` +
        `(add --allow-net=127.0.0.1:${other.port})`,
      hint: `--allow-net=127.0.0.1:${other.port}`,
    },
  ]);
});

mcpNetTest("a scoped --allow-net reaches MCP servers too, through the proxy", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  await using granted = webServer("RUN-GRANT-BODY");
  const sb = await openSandbox(layout, "bwrap", scopedNet(layout.ws, `127.0.0.1:${granted.port}`));
  try {
    const server = await startConfined(sb, { marker: crypto.randomUUID() });
    try {
      assert.equal(
        await server.call("fetch", { url: `http://127.0.0.1:${granted.port}/` }),
        "status 200: RUN-GRANT-BODY",
      );
    } finally {
      await server.close();
    }
  } finally {
    await sb.close();
  }
});

mcpNetTest("a bare --allow-net with --deny-net reaches every host but the denied", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  await using open = webServer("OPEN-BODY");
  await using denied = webServer("DENIED-BODY");
  const parsed = parseGrantFlags(
    { "allow-net": true, "deny-net": `127.0.0.1:${denied.port}` },
    { cwd: layout.ws },
  );
  if (!parsed.ok) throw parsed.error;
  const decisions: PermissionDecision[] = [];
  const sb = await openSandbox(layout, "bwrap", parsed.grants, {
    onDecision: (d) => decisions.push(d),
  });
  try {
    const server = await startConfined(sb, { marker: crypto.randomUUID() });
    try {
      assert.equal(
        await server.call("fetch", { url: `http://127.0.0.1:${open.port}/` }),
        "status 200: OPEN-BODY",
      );
      assert.equal(
        await server.call("fetch", { url: `http://127.0.0.1:${denied.port}/` }),
        `status 403: moat: net access to "127.0.0.1:${denied.port}" is denied by --deny-net\n`,
      );
    } finally {
      await server.close();
    }
  } finally {
    await sb.close();
  }
  const refused = decisions.find((d) => d.access === "net" && d.outcome === "denied");
  assert.equal(refused?.by, "deny_list");
  assert.equal(refused?.hint, undefined);
});

mcpNetTest("without a net grant a server has no network, and no forwarder", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  await using web = webServer("UNREACHABLE-BODY");
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws));
  const marker = crypto.randomUUID();
  try {
    const server = await startConfined(sb, { marker });
    try {
      assert.match(
        await server.call("fetch", { url: `http://127.0.0.1:${web.port}/` }),
        /^fetch failed/,
      );
      assert.equal(await server.call("env", { name: "HTTP_PROXY" }), "(unset)");
      assert.equal(processesWith(marker).length, 1, "the server alone");
    } finally {
      await server.close();
    }
  } finally {
    await sb.close();
  }
  assert.deepEqual(processesWith(marker), []);
});

mcpNetTest("a net entry that is not a host keeps the server from starting", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws));
  try {
    const confined = sb.confine({
      command: ["/bin/true"],
      env: {},
      net: ["https://example.com/path"],
    });
    assert.deepEqual(confined, {
      error: `its net permission "https://example.com/path" is refused: it is not a host name: ` +
        "write HOST or HOST:PORT (no scheme or path)",
    });
    assert.deepEqual(sb.confine({ command: ["/bin/true"], env: {}, net: ["a.com,b.com"] }), {
      error: `its net permission "a.com,b.com" is refused: write one HOST or HOST:PORT per entry`,
    });
  } finally {
    await sb.close();
  }
});
