/**
 * End-to-end with the reference MCP servers from npm (server-everything, server-filesystem,
 * server-memory; versions pinned in deno.json), configured the ways users do — a package binary,
 * `node <script>`, `npx -y` — and started under bubblewrap with the default grants (only the
 * workspace): each reads its own code, works, and reaches nothing else; npx needs the
 * `permissions` its failure names; a slow server does not hold up the first model request.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type FakeOpenAIServer,
  type FakeToolCall,
  repeat,
  reply,
  startFakeOpenAI,
  untilOffered,
} from "../support/fake_openai.ts";
import { type RealMcpServers, realMcpServers } from "../support/real_mcp_servers.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import {
  cliEnv,
  type CliResult,
  fixtureServerEntry,
  jsonLines,
  runMoat,
  toolResultOf,
  waitUntil,
} from "./_cli.ts";

const MEMORY = "@modelcontextprotocol/server-memory";

/** server-everything as its package binary (stdio is its default transport). */
const everything = (s: RealMcpServers) => ({
  command: s.bin("mcp-server-everything"),
  startupTimeoutSec: 30,
});

/** server-filesystem run by node, allowed (by its own args) the workspace and HOME. */
const filesystem = (s: RealMcpServers, ws: string, home: string) => ({
  command: "node",
  args: [
    join(s.packageDir("@modelcontextprotocol/server-filesystem"), "dist", "index.js"),
    ws,
    home,
  ],
  startupTimeoutSec: 30,
});

/** server-memory fetched by npx from the npm registry into a fresh npm cache under HOME. */
const memory = (s: RealMcpServers, extra: Record<string, unknown> = {}) => ({
  command: "npx",
  args: ["-y", `${MEMORY}@${s.versions[MEMORY]}`],
  // npm retries a failed fetch for over a minute by default; once is enough to see the failure.
  env: { npm_config_fetch_retries: "0" },
  startupTimeoutSec: 120,
  ...extra,
});

type Config = (s: RealMcpServers, ws: string, home: string) => Record<string, unknown>;

async function setUp(servers: Config) {
  const s = await realMcpServers();
  const server = await startFakeOpenAI();
  const ws = await createTempWorkspace({ "notes.txt": "inside the workspace\n" });
  const home = await createTempWorkspace({ "secret.txt": "outside the grants\n" });
  await Deno.mkdir(join(home.dir, "config", "moat"), { recursive: true });
  await Deno.writeTextFile(
    join(home.dir, "config", "moat", "config.json"),
    JSON.stringify({ mcpServers: servers(s, ws.dir, home.dir) }),
  );
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "sk-secret" });
  return {
    s,
    server,
    ws,
    home,
    run: (args: string[]) => runMoat(args, { cwd: ws.dir, env }),
    async [Symbol.asyncDispose]() {
      await server.close();
      for (const t of [ws, home]) await t[Symbol.asyncDispose]();
    },
  };
}

const everythingAndFilesystem: Config = (s, ws, home) => ({
  everything: everything(s),
  filesystem: filesystem(s, ws, home),
});

/** The lines `moat mcp list` printed for server `name` (its header line and indented lines). */
function listBlock(out: CliResult, name: string): string {
  const lines = out.stdout.split("\n");
  const start = lines.findIndex((l) => l.replace(/"/g, "").startsWith(`${name}  `));
  if (start < 0) return "";
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => !l.startsWith(" "));
  return [lines[start], ...(end < 0 ? rest : rest.slice(0, end))].join("\n");
}

/** The tools the model was offered in chat request `i` (0-based). */
const toolNames = (server: FakeOpenAIServer, i: number) =>
  server.chatRequests[i]?.body?.tools?.map((x) => x.function.name) ?? [];

Deno.test("moat mcp list shows the reference everything and filesystem servers ready, with their tools", async () => {
  await using t = await setUp(everythingAndFilesystem);
  const list = await t.run(["mcp", "list"]);
  assert.equal(list.code, 0, list.stderr);
  const e = listBlock(list, "everything");
  assert.match(e, /^"?everything"? {2}stdio {2}ready/, list.stdout + list.stderr);
  assert.match(e, /^ {2}"?everything__echo"?$/m, list.stdout);
  assert.match(e, /^ {2}"?everything__get-tiny-image"?$/m, list.stdout);
  const f = listBlock(list, "filesystem");
  assert.match(f, /^"?filesystem"? {2}stdio {2}ready/, list.stdout + list.stderr);
  assert.match(f, /^ {2}"?filesystem__read_text_file"?$/m, list.stdout);
  assert.equal(t.server.chatRequests.length, 0);
});

Deno.test("the reference everything server echoes, its image reaches the model, progress shows, and it never sees the API key", async () => {
  await using t = await setUp(everythingAndFilesystem);
  t.server.script(
    untilOffered("everything__echo"),
    reply.toolCalls([
      { id: "e1", name: "everything__echo", arguments: { message: "hello from moat" } },
      { id: "i1", name: "everything__get-tiny-image", arguments: {} },
      {
        id: "p1",
        name: "everything__trigger-long-running-operation",
        arguments: { duration: 0.2, steps: 2 },
      },
      { id: "v1", name: "everything__get-env", arguments: {} },
    ]),
    reply.text("Done."),
  );
  const run = await t.run([
    "--allow-mcp=everything",
    "--output",
    "jsonl",
    "--include-deltas",
    "go",
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.ok(toolNames(t.server, t.server.chatRequests.length - 2).includes("everything__echo"));
  assert.match(toolResultOf(t.server, "e1"), /hello from moat/);
  // A tool's image travels to the model as an image part of the user message after the results.
  const next = t.server.chatRequests.at(-1)?.body?.messages ?? [];
  const images = next.flatMap((m) =>
    m.role === "user" && Array.isArray(m.content)
      ? (m.content as Array<{ type: string; image_url?: { url: string } }>)
        .filter((p) => p.type === "image_url")
      : []
  );
  assert.equal(images.length, 1, JSON.stringify(next).slice(0, 2000));
  assert.match(images[0]?.image_url?.url ?? "", /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
  const updates = jsonLines(run.stdout).filter((e) =>
    e.type === "tool_update" && e.toolCallId === "p1"
  );
  // The last notification may race the result; the first one arrives before it.
  assert.ok(updates.some((u) => /Progress 1\/2/.test(String(u.text))), run.stdout);
  assert.match(toolResultOf(t.server, "p1"), /Long running operation completed/);
  const env = toolResultOf(t.server, "v1");
  assert.match(env, /"PATH"/);
  assert.doesNotMatch(env, /OPENAI_API_KEY|sk-secret/);
});

Deno.test("the reference filesystem server reads the workspace, and bubblewrap keeps it out of HOME although its args allow HOME", async () => {
  await using t = await setUp(everythingAndFilesystem);
  const call = (id: string, name: string, args: Record<string, unknown>): FakeToolCall => ({
    id,
    name: `filesystem__${name}`,
    arguments: args,
  });
  t.server.script(
    untilOffered("filesystem__read_text_file"),
    reply.toolCalls([
      call("r1", "read_text_file", { path: t.ws.path("notes.txt") }),
      call("r2", "read_text_file", { path: t.home.path("secret.txt") }),
      call("w1", "write_file", { path: t.home.path("planted.txt"), content: "x" }),
      call("w2", "write_file", { path: t.ws.path("ok.txt"), content: "ok" }),
    ]),
    reply.text("Probed."),
  );
  const run = await t.run(["--allow-mcp=filesystem", "probe"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(toolResultOf(t.server, "r1"), /inside the workspace/);
  assert.doesNotMatch(toolResultOf(t.server, "r2"), /outside the grants/);
  assert.doesNotMatch(toolResultOf(t.server, "w1"), /^Successfully wrote/);
  await assert.rejects(Deno.stat(t.home.path("planted.txt")), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(t.ws.path("ok.txt")), "ok");
});

Deno.test("npx runs the reference memory server only with the permissions its failure names", async () => {
  await using t = await setUp((s) => ({ memory: memory(s) }));
  const npmCache = join(t.home.dir, ".npm");
  const denied = await t.run(["mcp", "list"]);
  assert.equal(denied.code, 0, denied.stderr);
  // Inner quotes may come escaped (the list quotes the error as a whole).
  const said = `${listBlock(denied, "memory")}\n${denied.stderr}`.replace(/\\"/g, '"');
  assert.match(listBlock(denied, "memory"), /^"?memory"? {2}stdio {2}failed/, said);
  assert.match(said, /registry\.npmjs\.org/);
  // The grant to add: the registry's host and the npm cache.
  assert.match(said, /"permissions"/);
  assert.match(said, /"net":\s*\[\s*"registry\.npmjs\.org"\s*\]/);
  const cache = new RegExp(`"write":\\s*\\[\\s*"(~|${RegExp.escape(t.home.dir)})/\\.npm"\\s*\\]`);
  assert.match(said, cache);
  assert.match(said, /exit(ed)?\D{0,12}\b1\b/i);
  assert.match(said, /npm error/);

  // The same server with the grants, from --mcp-config (which wins by name).
  const granted = t.home.path("granted.json");
  await Deno.writeTextFile(
    granted,
    JSON.stringify({
      mcpServers: {
        memory: memory(t.s, {
          permissions: { net: ["registry.npmjs.org"], write: [npmCache] },
        }),
      },
    }),
  );
  t.server.script(
    // npx downloads the server first (it has up to 120 s to start): a turn a second, 100 turns.
    untilOffered("memory__create_entities", { delayMs: 1000 }),
    reply.toolCalls([{
      id: "m1",
      name: "memory__create_entities",
      arguments: {
        entities: [{ name: "moat", entityType: "agent", observations: ["runs MCP servers"] }],
      },
    }]),
    reply.toolCalls([{ id: "m2", name: "memory__read_graph", arguments: {} }]),
    reply.text("Remembered."),
  );
  const run = await t.run(["--mcp-config", granted, "--allow-mcp=memory", "remember"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(toolResultOf(t.server, "m2"), /runs MCP servers/, run.stderr);
});

Deno.test("a server slow to initialize does not hold up the first model request; its tools come later", async () => {
  await using t = await setUp((_s, ws) => ({
    slow: fixtureServerEntry([`--gate=${join(ws, "gate")}`, `--listed=${join(ws, "listed")}`], {
      startupTimeoutSec: 20,
    }),
  }));
  // The server answers `initialize` only once the gate exists, and the gate opens only when the
  // first model request has arrived: that request cannot have waited for the server.
  const opened = async () => {
    await Deno.writeTextFile(t.ws.path("gate"), "open");
    return reply.toolCalls([{ id: "r0", name: "read", arguments: { path: "notes.txt" } }]);
  };
  let listed: Promise<void> | undefined;
  let called = false;
  let turns = 0;
  const untilListed = repeat(async (request) => {
    const names = request.body?.tools?.map((x) => x.function.name) ?? [];
    if (called) return reply.text("Done.");
    if (names.includes("slow__echo")) {
      called = true;
      return reply.toolCalls([{ id: "s1", name: "slow__echo", arguments: { text: "late" } }]);
    }
    // Not offered yet: once the server has listed its tools, moat offers them from the next turn
    // on (the few turns here cover moat taking the list in).
    listed ??= waitUntil("the slow server to list its tools", async () => {
      try {
        await Deno.stat(t.ws.path("listed"));
        return true;
      } catch {
        return false;
      }
    }, 20_000).catch(() => {});
    await listed;
    turns++;
    return reply.toolCalls([{ name: "read", arguments: { path: "notes.txt", limit: turns } }], {
      delayMs: 20,
    });
  }, 20);
  t.server.script(opened, untilListed);
  const run = await t.run(["--allow-mcp=slow", "go"]);
  assert.equal(run.code, 0, run.stderr);
  assert.ok(!toolNames(t.server, 0).includes("slow__echo"));
  assert.ok(called, run.stderr);
  assert.equal(toolResultOf(t.server, "s1"), "late");
});

Deno.test("without bubblewrap the reference everything server starts only with --allow-unsandboxed-mcp, and then works", async () => {
  await using t = await setUp((s) => ({ everything: everything(s) }));
  t.server.script(reply.text("No MCP."));
  const off = await t.run(["--sandbox=off", "hi"]);
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stderr, /MCP server "everything" was not started: without the OS sandbox/);
  assert.ok(!toolNames(t.server, 0).some((n) => n.startsWith("everything__")));

  t.server.script(
    untilOffered("everything__echo"),
    reply.toolCalls([{ id: "e1", name: "everything__echo", arguments: { message: "unconfined" } }]),
    reply.text("Echoed."),
  );
  const on = await t.run(["--sandbox=off", "--allow-unsandboxed-mcp", "--allow-mcp", "hi"]);
  assert.equal(on.code, 0, on.stderr);
  assert.match(toolResultOf(t.server, "e1"), /unconfined/);
});
