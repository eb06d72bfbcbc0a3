import assert from "node:assert/strict";
import { join } from "node:path";
import { readStartTask } from "../../../scripts/compile.ts";
import { TOOL_HOST_COMMAND } from "../../../src/sandbox/host/protocol.ts";
import { HOST_CONFIG_FILE, TOOL_HOST_PACKAGES } from "../../../src/sandbox/launch.ts";
import { workerModuleUrl } from "../../../src/sandbox/worker/worker_modules.ts";
import { createTempWorkspace } from "../../support/workspace.ts";

const ROOT = new URL("../../..", import.meta.url).pathname;
const DENO_JSON = join(ROOT, "deno.json");

/**
 * The modules a process started at `entry` loads: what `deno info` finds from it through code
 * imports, static and dynamic (type-only imports are erased and load nothing).
 */
async function loadedFrom(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", DENO_JSON, join(ROOT, entry)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: Array<{ specifier: string; dependencies?: Array<{ code?: { specifier?: string } }> }>;
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const loaded = new Set<string>(info.roots);
  for (const specifier of loaded) {
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dependency.code?.specifier !== undefined) loaded.add(dependency.code.specifier);
    }
  }
  return [...loaded].map((m) => m.replace(`file://${ROOT}`, ""));
}

/** Modules only the CLI needs: its own, the model client (and SDK), the agent, sessions. */
const CLI_ONLY = /^(src\/(cli|model|agent|session)\/|npm:\/?openai)/;

Deno.test("the tool host process loads no module of the CLI, the model client or the agent", async () => {
  const host = await loadedFrom("src/sandbox/host/main.ts");
  assert.ok(host.includes("src/sandbox/host/server.ts"));
  assert.deepEqual(host.filter((m) => CLI_ONLY.test(m)), []);
  // The same check finds them in the CLI's graph (main.ts imports both entries lazily).
  const cli = await loadedFrom("src/cli/main.ts");
  assert.ok(cli.some((m) => CLI_ONLY.test(m)), cli.join("\n"));
});

Deno.test("the tool host's view holds every npm package its processes and Workers import", async () => {
  const entries = [
    "src/sandbox/host/main.ts",
    "src/sandbox/worker/worker.ts",
    "src/sandbox/worker/query_worker.ts",
    "src/sandbox/worker/grep_worker.ts",
  ];
  const graphs = await Promise.all(entries.map(loadedFrom));
  // "npm:name@version/sub" or "npm:/@scope/name@version": the name ends at the version's "@".
  const imported = new Set(
    graphs.flat().filter((m) => m.startsWith("npm:")).map((m) => {
      const spec = m.slice("npm:".length).replace(/^\//, "");
      return spec.slice(0, spec.indexOf("@", 1));
    }),
  );
  assert.ok(imported.has("@sinclair/typebox"), [...imported].join(", "));
  assert.deepEqual([...imported].filter((name) => !TOOL_HOST_PACKAGES.includes(name)), []);
});

Deno.test("an MCP server's forwarder loads its sockets only: not the tool host, not the CLI", async () => {
  const forwarder = await loadedFrom("src/sandbox/host/mcp_forward_main.ts");
  assert.ok(forwarder.includes("src/sandbox/net/forward.ts"), forwarder.join("\n"));
  assert.deepEqual(
    forwarder.filter((m) =>
      CLI_ONLY.test(m) || /^src\/(sandbox\/(host\/server|worker)|tools|policy)/.test(m)
    ),
    [],
  );
});

/** `main.ts __tool-host` under the start task's flags and `config`, in `cwd`, piped. */
async function spawnToolHost(config: string, cwd: string): Promise<Deno.ChildProcess> {
  const start = await readStartTask(DENO_JSON);
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...start.flags, "--config", config, join(ROOT, "main.ts"), TOOL_HOST_COMMAND],
    cwd,
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("main.ts __tool-host serves the tool host protocol under the start task's flags", async () => {
  await using ws = await createTempWorkspace({ "a.txt": "" });
  const child = await spawnToolHost(DENO_JSON, ws.dir);
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  const send = (msg: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(msg) + "\n"));
  // The deny-list Worker: no tools, it answers permission queries with its own permissions.
  const none = { read: false, write: false, run: false, net: false, env: false };
  await send({
    type: "init",
    config: {
      workerUrl: workerModuleUrl("query"),
      permissions: { ...none, read: [ws.dir], sys: false, ffi: false, import: false },
      toolOptions: { cwd: ws.dir, spillDir: ws.dir },
    },
  });
  await send({
    type: "query",
    id: 1,
    descriptors: [{ name: "read", path: ws.path("a.txt") }, { name: "read", path: "/etc" }],
  });
  await writer.close();
  const [status, stdout] = await Promise.all([child.status, new Response(child.stdout).text()]);
  assert.equal(status.code, 0, await stderr);
  const messages = stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(messages, [
    { type: "ready" },
    { type: "query_result", id: 1, states: ["granted", "prompt"] },
  ]);
});

Deno.test("main.ts __tool-host starts the tools Worker under the host's own config and lock", async () => {
  await using ws = await createTempWorkspace({ "a.txt": "" });
  const config = join(ROOT, "src", "sandbox", "host", HOST_CONFIG_FILE);
  const child = await spawnToolHost(config, ws.dir);
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  const line = JSON.stringify({
    type: "init",
    config: {
      workerUrl: workerModuleUrl("tools"),
      permissions: { read: [ws.dir], write: false, run: false, net: false, env: false },
      toolOptions: { cwd: ws.dir, spillDir: ws.dir, env: {} },
    },
  });
  await writer.write(new TextEncoder().encode(line + "\n"));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const next = await reader.read();
    if (next.done) break;
    out += next.value;
  }
  await writer.close();
  await reader.cancel();
  const status = await child.status;
  assert.equal(status.code, 0, await stderr);
  assert.deepEqual(JSON.parse(out.split("\n")[0] ?? ""), { type: "ready" }, await stderr);
});
