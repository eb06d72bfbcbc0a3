/**
 * A real Node MCP server installed like an npm package, for tests: a temporary directory holding
 * `node_modules/mini-mcp` (the server, a plain script speaking newline-delimited JSON-RPC), the
 * sibling package `node_modules/mini-mcp-helper` it requires (hoisted as npm does), and the
 * `node_modules/.bin/mini-mcp` symlink. Tools: greet (uses the helper), read_file, write_file and env, which
 * report what happened as text. `--fail` makes it write colored stderr lines and exit 3 at once;
 * `--config=FILE` makes it exit 1 when it cannot read FILE.
 */
import { join } from "node:path";
import { createTempWorkspace, type TempWorkspace } from "./workspace.ts";

const SERVER = String.raw`#!/usr/bin/env node
"use strict";
const fs = require("node:fs");
if (process.argv.includes("--fail")) {
  process.stderr.write("\x1b[31mError: mini-mcp cannot open its database\x1b[0m\n");
  process.stderr.write("    at open (/x/db.js:1:1)\n");
  process.exit(3);
}
const config = process.argv.find((a) => a.startsWith("--config="));
if (config !== undefined) {
  try {
    fs.readFileSync(config.slice("--config=".length), "utf8");
  } catch (e) {
    process.stderr.write("mini-mcp: cannot read its config: " + e.code + "\n");
    process.exit(1);
  }
}
const { greet } = require("mini-mcp-helper");
const tools = [
  { name: "greet", description: "Greets", inputSchema: { type: "object", properties: { who: { type: "string" } } } },
  { name: "read_file", description: "Reads a file", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "write_file", description: "Writes a file", inputSchema: { type: "object", properties: { path: { type: "string" }, text: { type: "string" } }, required: ["path", "text"] } },
  { name: "env", description: "One variable", inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
];
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const text = (t) => ({ content: [{ type: "text", text: t }] });
function call(name, args) {
  if (name === "greet") return text(greet(args.who ?? "world"));
  if (name === "read_file") {
    try { return text(fs.readFileSync(args.path, "utf8")); } catch (e) { return text("read failed: " + e.code); }
  }
  if (name === "write_file") {
    try { fs.writeFileSync(args.path, args.text); return text("written"); } catch (e) { return text("write failed: " + e.code); }
  }
  if (name === "env") return text(process.env[args.name] ?? "(unset)");
  return { content: [{ type: "text", text: "unknown tool" }], isError: true };
}
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let i;
  while ((i = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    if (line.trim() === "") continue;
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    if (m.method === "initialize") {
      send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "mini-mcp", version: "1.0.0" } } });
    } else if (m.method === "tools/list") {
      send({ jsonrpc: "2.0", id: m.id, result: { tools } });
    } else if (m.method === "tools/call") {
      send({ jsonrpc: "2.0", id: m.id, result: call(m.params.name, m.params.arguments ?? {}) });
    } else {
      send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } });
    }
  }
});
process.stdin.on("end", () => process.exit(0));
`;

/** A temporary npm-style install of the mini-mcp server (outside any workspace). */
export interface NodeMcpInstall extends TempWorkspace {
  /** `<dir>/node_modules/.bin/mini-mcp` (a symlink to the server script). */
  bin: string;
  /** `<dir>/node_modules/mini-mcp/server.js`. */
  script: string;
  /** `<dir>/node_modules`: the directory the server needs to read. */
  nodeModules: string;
}

/** Installs the mini-mcp server into a fresh temporary directory. */
export async function installNodeMcp(): Promise<NodeMcpInstall> {
  const dir = await createTempWorkspace({
    "node_modules/mini-mcp/package.json": JSON.stringify({
      name: "mini-mcp",
      version: "1.0.0",
      bin: { "mini-mcp": "server.js" },
    }),
    "node_modules/mini-mcp/server.js": SERVER,
    "node_modules/mini-mcp-helper/package.json": JSON.stringify({
      name: "mini-mcp-helper",
      version: "1.0.0",
      main: "index.js",
    }),
    "node_modules/mini-mcp-helper/index.js":
      'exports.greet = (who) => "hello " + who + " from the helper";\n',
  });
  const nodeModules = await Deno.realPath(join(dir.dir, "node_modules"));
  const script = join(nodeModules, "mini-mcp", "server.js");
  await Deno.chmod(script, 0o755);
  await Deno.mkdir(join(nodeModules, ".bin"));
  const bin = join(nodeModules, ".bin", "mini-mcp");
  await Deno.symlink("../mini-mcp/server.js", bin);
  return Object.assign(dir, { bin, script, nodeModules });
}
