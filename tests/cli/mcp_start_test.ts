import assert from "node:assert/strict";
import { planStdio } from "../../src/cli/mcp_start.ts";
import type { ConfineSpec } from "../../src/sandbox/mod.ts";
import { parseMcpServers } from "../../src/mcp/mod.ts";
import { createDenoScanOps } from "../../src/sys/paths.ts";
import { defaultGrants } from "../support/grants.ts";
import { installNodeMcp } from "../support/mcp_node_fixture.ts";
import { createTempWorkspace } from "../support/workspace.ts";

function stdio(config: Record<string, unknown>) {
  const parsed = parseMcpServers({ s: config }, "/u/config.json");
  if (!parsed.ok || parsed.servers[0]?.type !== "stdio") throw new Error("bad test config");
  return { server: parsed.servers[0], origin: "user" as const, file: "/u/config.json" };
}

Deno.test("planStdio() confines a server with its own code and permissions, never a secret in its env", async () => {
  await using ws = await createTempWorkspace();
  await using install = await installNodeMcp();
  const specs: ConfineSpec[] = [];
  const plan = planStdio(
    {
      env: { OPENAI_API_KEY: "sk", MY_TOKEN: "t", HOME: "/nonexistent-home" },
      workspace: ws.dir,
      paths: createDenoScanOps(),
    },
    {
      grants: defaultGrants(ws.dir),
      toolEnv: () => ({ PATH: "/usr/bin:/bin" }),
      confine: (spec) => {
        specs.push(spec);
        return { argv: ["bwrap", "--", ...spec.command] };
      },
    },
    stdio({
      command: install.bin,
      env: { OPENAI_API_KEY: "from-config", MODE: "x" },
      permissions: { env: ["MY_TOKEN", "OPENAI_API_KEY"], write: [install.path("data")] },
    }),
    { secretEnvNames: ["OPENAI_API_KEY"], name: '"s"' },
  );
  assert.ok(plan.ok);
  assert.deepEqual(plan.confined, ["bwrap", "--", install.bin]);
  assert.deepEqual(specs[0]?.readOnly, [install.nodeModules]);
  assert.deepEqual(specs[0]?.readWrite, [install.path("data")]);
  // The safe list (HOME: launchers need it) and the named variables; never the key.
  assert.deepEqual(specs[0]?.env, {
    PATH: "/usr/bin:/bin",
    HOME: "/nonexistent-home",
    MY_TOKEN: "t",
    MODE: "x",
  });
  assert.equal(plan.refused, undefined);
});

Deno.test("planStdio() refuses a program that is nowhere, and says an unconfined server sees everything", async () => {
  await using ws = await createTempWorkspace();
  const setup = { env: {}, workspace: ws.dir, paths: createDenoScanOps() };
  const sandbox = { grants: defaultGrants(ws.dir), toolEnv: () => ({ PATH: "/usr/bin:/bin" }) };
  const gone = planStdio(setup, sandbox, stdio({ command: "no-such-mcp-server" }), {
    secretEnvNames: [],
    name: '"s"',
  });
  assert.ok(gone.ok);
  assert.equal(
    gone.refused,
    'its program "no-such-mcp-server" is not on the PATH ("/usr/bin:/bin"): name it by its ' +
      `path in "command", or set PATH in the server's "env" (in "/u/config.json")`,
  );
  const open = planStdio(setup, sandbox, stdio({ command: "sh" }), {
    secretEnvNames: [],
    name: "s",
  });
  assert.ok(open.ok);
  assert.equal(open.summary, "read all · write all · net all (not sandboxed)");
});

Deno.test("planStdio() leaves an --ignore-env variable out of a server's env, even one its permissions name", async () => {
  await using ws = await createTempWorkspace();
  const grants = { ...defaultGrants(ws.dir), ignoreEnv: ["MY_TOKEN", "LANG"] };
  const plan = planStdio(
    {
      env: { MY_TOKEN: "t", OTHER: "o", LANG: "C" },
      workspace: ws.dir,
      paths: createDenoScanOps(),
    },
    { grants, toolEnv: () => ({ PATH: "/usr/bin:/bin" }) },
    stdio({ command: "sh", permissions: { env: ["MY_TOKEN", "OTHER"] } }),
    { secretEnvNames: [], name: '"s"' },
  );
  assert.ok(plan.ok);
  assert.deepEqual(plan.env, { PATH: "/usr/bin:/bin", OTHER: "o" });
});
