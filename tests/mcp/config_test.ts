import assert from "node:assert/strict";
import { parseMcpJson, parseMcpServers } from "../../src/mcp/mod.ts";

Deno.test("parseMcpServers() reads stdio and http servers, inferring the type and filling defaults", () => {
  const parsed = parseMcpServers({
    files: { command: "npx", args: ["-y", "files-mcp"], env: { TOKEN: "t" }, cwd: "/w" },
    web: {
      url: "https://example.com/mcp",
      headers: { Authorization: "Bearer x" },
      tools: { include: ["search"], exclude: ["delete"] },
      startupTimeoutSec: 2.5,
    },
    plain: { type: "stdio", command: "srv" },
  }, "/w/.mcp.json");
  assert.deepEqual(parsed, {
    ok: true,
    servers: [
      {
        name: "files",
        type: "stdio",
        command: "npx",
        args: ["-y", "files-mcp"],
        env: { TOKEN: "t" },
        cwd: "/w",
        tools: {},
        startupTimeoutSec: 10,
      },
      {
        name: "web",
        type: "http",
        url: "https://example.com/mcp",
        headers: { Authorization: "Bearer x" },
        tools: { include: ["search"], exclude: ["delete"] },
        startupTimeoutSec: 2.5,
      },
      {
        name: "plain",
        type: "stdio",
        command: "srv",
        args: [],
        env: {},
        tools: {},
        startupTimeoutSec: 10,
      },
    ],
  });
});

Deno.test("parseMcpServers() refuses server names that cannot prefix a tool name", () => {
  for (const name of ["has space", "dot.ted", "", "x".repeat(41)]) {
    const parsed = parseMcpServers({ [name]: { command: "srv" } }, "cfg.json");
    assert.equal(parsed.ok, false, name);
    assert.match(
      (parsed as { error: string }).error,
      /^Invalid MCP server config in "cfg\.json": server name ".*" is invalid: use 1 to 40/,
    );
  }
  assert.equal(parseMcpServers({ ["x".repeat(40)]: { command: "srv" } }, "cfg.json").ok, true);
});

Deno.test("parseMcpServers() names the file, the server and the field of a bad value", () => {
  const cases: Array<[unknown, string]> = [
    [
      { a: { command: "" } },
      `server "a": field "command": expected string length greater or equal to 1`,
    ],
    [{ a: { command: "x", args: "y" } }, `server "a": field "args": expected array`],
    [{ a: { command: "x", env: { A: 1 } } }, `server "a": field "env.A": expected string`],
    [{ a: { command: "x", startupTimeoutSec: 0 } }, `server "a": field "startupTimeoutSec"`],
    [{ a: { command: "x", tools: { include: "echo" } } }, `server "a": field "tools.include"`],
    [
      { a: { command: "x", tools: { only: [] } } },
      `server "a": field "tools.only": unknown field (known fields: include, exclude)`,
    ],
    [{ a: { command: "x", disabled: true } }, `server "a": field "disabled": unknown field`],
    [
      { a: { url: "ftp://x" } },
      `server "a": field "url": expected an http:// or https:// URL, got "ftp://x"`,
    ],
    [{ a: { url: "https://" } }, `server "a": field "url": "https://" is not a valid URL`],
    [
      { a: { type: "sse", url: "https://x" } },
      `server "a": field "type": expected "stdio" or "http", got "sse" (the SSE`,
    ],
    [{ a: { type: "http", command: "x" } }, `server "a": field "url"`],
    [{ a: {} }, `server "a": needs "command" (a program over stdio) or "url"`],
    [{ a: [] }, `server "a": must be an object`],
    [[], `"mcpServers" must be an object of servers by name`],
  ];
  for (const [value, expected] of cases) {
    const parsed = parseMcpServers(value, "/p/.mcp.json");
    assert.equal(parsed.ok, false, JSON.stringify(value));
    const error = (parsed as { error: string }).error;
    assert.ok(
      error.startsWith(`Invalid MCP server config in "/p/.mcp.json": ${expected}`),
      `${JSON.stringify(value)} → ${error}`,
    );
  }
});

Deno.test("parseMcpJson() reads a .mcp.json file and reports bad JSON and unknown keys", () => {
  assert.deepEqual(parseMcpJson(`{"mcpServers": {"a": {"command": "srv"}}}`, ".mcp.json"), {
    ok: true,
    servers: [{
      name: "a",
      type: "stdio",
      command: "srv",
      args: [],
      env: {},
      tools: {},
      startupTimeoutSec: 10,
    }],
  });
  assert.deepEqual(parseMcpJson(`{}`, ".mcp.json"), { ok: true, servers: [] });
  const bad = parseMcpJson(`{"mcpServers": `, ".mcp.json");
  assert.match(
    (bad as { error: string }).error,
    /^Invalid MCP server config in "\.mcp\.json": not valid JSON: /,
  );
  assert.deepEqual(parseMcpJson(`{"servers": {}}`, ".mcp.json"), {
    ok: false,
    error:
      `Invalid MCP server config in ".mcp.json": unknown field "servers" (known fields: mcpServers)`,
  });
});

Deno.test("parseMcpServers() reads a stdio server's permissions in Deno's vocabulary", () => {
  const permissions = {
    read: ["/opt/mcp", "~/data"],
    write: ["~/.npm"],
    net: ["registry.npmjs.org"],
    env: ["GITHUB_TOKEN", "NPM_*"],
    run: ["git"],
  };
  const parsed = parseMcpServers({ fs: { command: "npx", permissions } }, "/u/config.json");
  assert.ok(parsed.ok);
  const server = parsed.servers[0];
  assert.equal(server?.type, "stdio");
  assert.deepEqual(server?.type === "stdio" ? server.permissions : undefined, permissions);
});

Deno.test("parseMcpServers() names an unknown permission and a value that is not a list", () => {
  const unknown = parseMcpServers(
    { fs: { command: "x", permissions: { read: ["/a"], ffi: ["/lib.so"] } } },
    "/u/config.json",
  );
  assert.deepEqual(unknown, {
    ok: false,
    error: `Invalid MCP server config in "/u/config.json": server "fs": field ` +
      `"permissions.ffi": unknown field (known fields: read, write, net, env, run)`,
  });
  const scalar = parseMcpServers(
    { fs: { command: "x", permissions: { net: "registry.npmjs.org" } } },
    "/u/config.json",
  );
  assert.ok(!scalar.ok);
  assert.match(scalar.error, /server "fs": field "permissions\.net": expected array/);
  const http = parseMcpServers(
    { web: { url: "https://example.com/mcp", permissions: { read: ["/a"] } } },
    "/u/config.json",
  );
  assert.ok(!http.ok);
  assert.match(http.error, /server "web": field "permissions": unknown field/);
});
