/**
 * End-to-end, under bubblewrap: a real Node MCP server installed outside the workspace (an npm
 * style node_modules with a .bin symlink and a hoisted dependency) reads its own code under the
 * default grants, gets per-server permissions from the user config only, and a server that fails
 * says why (its stderr's first lines, its exit code) and which grant would fix it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI, untilOffered } from "../support/fake_openai.ts";
import { installNodeMcp } from "../support/mcp_node_fixture.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, runMoat, toolResultOf } from "./_cli.ts";

const hasBwrap = new Deno.Command("bwrap", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);

async function setUp() {
  const server = await startFakeOpenAI();
  const install = await installNodeMcp();
  const ws = await createTempWorkspace({ "notes.txt": "inside the workspace\n" });
  const home = await createTempWorkspace();
  const outside = await createTempWorkspace({
    "data/granted.txt": "granted data\n",
    "secret.txt": "outside the grants\n",
  });
  const configFile = join(home.dir, "config", "moat", "config.json");
  await Deno.mkdir(join(home.dir, "config", "moat"), { recursive: true });
  const env = (extra: Record<string, string> = {}) =>
    cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "sk-secret", ...extra });
  return {
    server,
    install,
    ws,
    home,
    outside,
    configFile,
    configure: (mcpServers: Record<string, unknown>) =>
      Deno.writeTextFile(configFile, JSON.stringify({ mcpServers })),
    run: (args: string[], extra: Record<string, string> = {}) =>
      runMoat(args, { cwd: ws.dir, env: env(extra) }),
    async [Symbol.asyncDispose]() {
      await server.close();
      for (const t of [install, ws, home, outside]) await t[Symbol.asyncDispose]();
    },
  };
}

/** The block of `moat mcp list` for one server (its header line up to the next server). */
function blockOf(stdout: string, name: string): string {
  const start = stdout.search(new RegExp(`^"?${name}"? {2}`, "m"));
  if (start < 0) return "";
  const rest = stdout.slice(start);
  const body = rest.indexOf("\n") + 1;
  const next = rest.slice(body).search(/^"?[A-Za-z0-9_-]+"? {2}stdio/m);
  return next < 0 ? rest : rest.slice(0, body + next);
}

Deno.test("a Node server outside the workspace reads its own code (and its hoisted dependency) under the default grants", async () => {
  if (!(await hasBwrap)) return;
  await using t = await setUp();
  // As a global install puts it on PATH: a bin/ symlink outside the view.
  await Deno.mkdir(t.install.path("bin"));
  await Deno.symlink(t.install.script, t.install.path("bin/mini-mcp"));
  await t.configure({
    bin: { command: t.install.bin },
    script: { command: "node", args: [t.install.script] },
    onpath: { command: "mini-mcp", env: { PATH: `${t.install.path("bin")}:/usr/bin:/bin` } },
  });
  const list = await t.run(["mcp", "list"]);
  assert.equal(list.code, 0, list.stderr);
  for (const name of ["bin", "script", "onpath"]) {
    const block = blockOf(list.stdout, name);
    assert.match(block, new RegExp(`^"?${name}"? {2}stdio {2}ready\\n`), list.stdout + list.stderr);
    assert.match(block, new RegExp(`^ {2}"?${name}__greet"?$`, "m"));
    // Exactly the workspace and the install's node_modules: nothing else of the machine.
    assert.match(
      block,
      new RegExp(
        `^ {2}can: read ${t.ws.dir}, ${t.install.nodeModules} · write ${t.ws.dir} · net none$`,
        "m",
      ),
    );
  }

  // The hoisted helper answers, and nothing outside the view is readable.
  t.server.script(
    untilOffered("bin__greet"),
    reply.toolCalls([
      { id: "g1", name: "bin__greet", arguments: { who: "moat" } },
      { id: "r1", name: "bin__read_file", arguments: { path: t.outside.path("secret.txt") } },
    ]),
    reply.text("Done."),
  );
  const run = await t.run(["--allow-mcp=bin", "go"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(toolResultOf(t.server, "g1"), "hello moat from the helper");
  assert.equal(toolResultOf(t.server, "r1"), "read failed: ENOENT");
});

Deno.test("a failing server's message shows its stderr's first lines and exit code; a missing script is refused before it starts", async () => {
  if (!(await hasBwrap)) return;
  await using t = await setUp();
  await t.configure({
    failing: { command: "node", args: [t.install.script, "--fail"] },
    gone: { command: "node", args: [join(t.install.dir, "nope", "index.js")] },
  });
  const list = await t.run(["mcp", "list"]);
  assert.equal(list.code, 0, list.stderr);
  const failing = blockOf(list.stdout, "failing");
  assert.match(
    failing,
    /error: "failed to start: exited with code 3: Error: mini-mcp cannot open its database \| at open \(\/x\/db\.js:1:1\)"/,
  );
  const output = list.stdout + list.stderr;
  assert.ok(!output.includes("\x1b") && !output.includes("\\u001b"), "no terminal escapes");
  assert.match(
    blockOf(list.stdout, "gone"),
    new RegExp(
      `error: "failed to start: could not start \\\\"node\\\\": its script \\\\"${
        join(t.install.dir, "nope", "index.js")
      }\\\\" does not exist: fix \\\\"args\\\\"`,
    ),
  );
});

Deno.test("a server that cannot read a path it is given names the grant, and permissions.read gives exactly that", async () => {
  if (!(await hasBwrap)) return;
  await using t = await setUp();
  const data = t.outside.path("data");
  const server = (extra: Record<string, unknown> = {}) => ({
    command: t.install.bin,
    args: [`--config=${join(data, "granted.txt")}`],
    env: { MCP_MODE: "test" },
    ...extra,
  });
  await t.configure({ cfg: server() });
  const refused = await t.run(["mcp", "list"]);
  assert.equal(refused.code, 0, refused.stderr);
  assert.ok(
    blockOf(refused.stdout, "cfg").includes(
      `error: "failed to start: exited with code 1: mini-mcp: cannot read its config: ENOENT; ` +
        `add \\"permissions\\": {\\"read\\": [\\"${data}\\"]} to server \\"cfg\\" in ` +
        `\\"${t.configFile}\\", or give --allow-read=${data}"`,
    ),
    refused.stdout,
  );

  await t.configure({
    cfg: server({ permissions: { read: [data], env: ["MY_TOKEN", "OPENAI_API_KEY"] } }),
  });
  t.server.script(
    untilOffered("cfg__read_file"),
    reply.toolCalls([
      { id: "r1", name: "cfg__read_file", arguments: { path: join(data, "granted.txt") } },
      { id: "r2", name: "cfg__read_file", arguments: { path: t.outside.path("secret.txt") } },
      { id: "e1", name: "cfg__env", arguments: { name: "MY_TOKEN" } },
      { id: "e2", name: "cfg__env", arguments: { name: "OPENAI_API_KEY" } },
      { id: "e3", name: "cfg__env", arguments: { name: "MCP_MODE" } },
    ]),
    reply.text("Done."),
  );
  const run = await t.run(["--allow-mcp=cfg", "--verbose", "go"], { MY_TOKEN: "tok-1" });
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    new RegExp(`MCP server "cfg": read ${t.ws.dir}, ${t.install.nodeModules}, ${data} · write`),
  );
  assert.equal(toolResultOf(t.server, "r1"), "granted data\n");
  assert.equal(toolResultOf(t.server, "r2"), "read failed: ENOENT");
  assert.equal(toolResultOf(t.server, "e1"), "tok-1");
  // The provider key never reaches a server, even when its permissions name it.
  assert.equal(toolResultOf(t.server, "e2"), "(unset)");
  assert.equal(toolResultOf(t.server, "e3"), "test");
});

Deno.test("--deny-read inside a server's own code stays masked", async () => {
  if (!(await hasBwrap)) return;
  await using t = await setUp();
  await t.configure({ bin: { command: t.install.bin } });
  const helper = join(t.install.nodeModules, "mini-mcp-helper");
  const list = await t.run(["mcp", "list", `--deny-read=${helper}`]);
  assert.equal(list.code, 0, list.stderr);
  const block = blockOf(list.stdout, "bin");
  assert.match(block, /^"?bin"? {2}stdio {2}failed\n/);
  assert.match(block, /exited with code 1: .*Cannot find module 'mini-mcp-helper'/);
  assert.match(block, new RegExp(`can: read .* \\(not ${helper}\\)`));
});

Deno.test("permissions.write makes a directory writable for that server only, its git hooks staying read-only", async () => {
  if (!(await hasBwrap)) return;
  await using t = await setUp();
  const repo = t.outside.path("repo");
  await Deno.mkdir(join(repo, ".git", "hooks"), { recursive: true });
  await Deno.writeTextFile(join(repo, ".git", "config"), "[core]\n");
  await t.configure({ w: { command: t.install.bin, permissions: { write: [repo] } } });
  t.server.script(
    untilOffered("w__write_file"),
    reply.toolCalls([
      { id: "w1", name: "w__write_file", arguments: { path: join(repo, "out.txt"), text: "ok" } },
      {
        id: "w2",
        name: "w__write_file",
        arguments: { path: join(repo, ".git", "hooks", "pre-commit"), text: "evil" },
      },
      {
        id: "w3",
        name: "w__write_file",
        arguments: { path: join(repo, ".git", "config"), text: "evil" },
      },
      { id: "b1", name: "bash", arguments: { command: `echo x > ${join(repo, "bash.txt")}` } },
    ]),
    reply.text("Done."),
  );
  const run = await t.run(["--allow-mcp=w", "--allow-run", "go"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(toolResultOf(t.server, "w1"), "written");
  assert.equal(await Deno.readTextFile(join(repo, "out.txt")), "ok");
  assert.match(toolResultOf(t.server, "w2"), /^write failed: E(ROFS|ACCES|PERM)/);
  assert.match(toolResultOf(t.server, "w3"), /^write failed: E(ROFS|ACCES|PERM)/);
  assert.equal(await Deno.readTextFile(join(repo, ".git", "config")), "[core]\n");
  await assert.rejects(Deno.stat(join(repo, ".git", "hooks", "pre-commit")), Deno.errors.NotFound);
  // The tools' grants are not widened by a server's.
  await assert.rejects(Deno.stat(join(repo, "bash.txt")), Deno.errors.NotFound);
});
