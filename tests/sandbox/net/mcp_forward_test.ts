import assert from "node:assert/strict";
import { MCP_FORWARD_ENV } from "../../../src/sandbox/host/protocol.ts";
import { tokenHex } from "../../../src/sandbox/net/forward.ts";
import { type McpForwardSys, runMcpForward } from "../../../src/sandbox/net/mcp_forward.ts";
import { createDenoNetOps } from "../../../src/sys/net.ts";
import { createTempWorkspace } from "../../support/workspace.ts";

/** The forwarder's effects with Deno's sockets, a recorded server run and recorded stderr. */
function fakeSys(env: Record<string, string>, exit: Awaited<ReturnType<McpForwardSys["run"]>>) {
  const runs: Array<{ program: string; args: string[]; env: Record<string, string> }> = [];
  const said: string[] = [];
  const sys: McpForwardSys = {
    net: createDenoNetOps(),
    env: () => env,
    run(program, args, env) {
      runs.push({ program, args, env });
      return Promise.resolve(exit);
    },
    stderr: (text) => said.push(text),
  };
  return { sys, runs, said };
}

Deno.test("runMcpForward() runs the server with only its env plus the HTTP proxy variables", async () => {
  await using dir = await createTempWorkspace();
  const config = {
    socketPath: dir.path("proxy.sock"),
    token: tokenHex(Uint8Array.of(1, 2, 255)),
    env: { PATH: "/usr/bin", SERVER_TOKEN: "s" },
  };
  const { sys, runs, said } = fakeSys(
    { [MCP_FORWARD_ENV]: JSON.stringify(config), DENO_DIR: "/cache" },
    { ok: true, code: 3 },
  );
  assert.equal(await runMcpForward(["--", "server", "--stdio"], sys), 3, said.join(""));
  assert.equal(runs.length, 1);
  const [run] = runs;
  assert.equal(run?.program, "server");
  assert.deepEqual(run?.args, ["--stdio"]);
  const proxy = run?.env["HTTP_PROXY"] ?? "";
  assert.match(proxy, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.deepEqual(run?.env, {
    PATH: "/usr/bin",
    SERVER_TOKEN: "s",
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    NO_PROXY: "",
    no_proxy: "",
    npm_config_proxy: proxy,
    npm_config_https_proxy: proxy,
  });
});

Deno.test("runMcpForward() says why when it has no config or the server cannot start", async () => {
  const none = fakeSys({}, { ok: true, code: 0 });
  assert.equal(await runMcpForward(["--", "server"], none.sys), 2);
  assert.deepEqual(none.runs, []);
  assert.match(none.said.join(""), /MOAT_MCP_FORWARD and a command are needed/);

  await using dir = await createTempWorkspace();
  const config = { socketPath: dir.path("p.sock"), token: "", env: {} };
  const missing = fakeSys({ [MCP_FORWARD_ENV]: JSON.stringify(config) }, {
    ok: false,
    message: "entity not found",
  });
  assert.equal(await runMcpForward(["--", "nosuch"], missing.sys), 127);
  assert.match(missing.said.join(""), /cannot start the MCP server "nosuch": entity not found/);
});
