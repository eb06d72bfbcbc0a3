import assert from "node:assert/strict";
import { hostLaunch, type SandboxSys, TOOL_HOST_COMMAND } from "../../src/sandbox/mod.ts";

function fakeSys(runtime: { exec: string; standalone: boolean }): SandboxSys {
  const files = new Set(["/opt/moat/deno.json"]);
  const unused = () => {
    throw new Error("not used by hostLaunch");
  };
  return {
    processes: { spawn: unused } as unknown as SandboxSys["processes"],
    commands: { output: unused } as unknown as SandboxSys["commands"],
    runtime: {
      execPath: () => runtime.exec,
      mainModule: () => "file:///opt/moat/main.ts",
      standalone: () => runtime.standalone,
      denoDir: () => Promise.resolve("/cache/deno"),
    },
    paths: {
      realPath: (path) => ({ ok: true, path }),
      stat: (path) => files.has(path) ? { kind: "file" } : undefined,
      lstat: () => undefined,
      readTextFile: () => undefined,
      readDirNames: () => undefined,
    } as SandboxSys["paths"],
  };
}

Deno.test("hostLaunch() re-executes a compiled binary with the hidden sub-command", async () => {
  const launch = await hostLaunch(fakeSys({ exec: "/usr/local/bin/moat", standalone: true }), {
    script: undefined,
    env: {},
  });
  assert.deepEqual(launch.command, ["/usr/local/bin/moat", TOOL_HOST_COMMAND]);
  assert.deepEqual(launch.readOnlyPaths, ["/usr/local/bin/moat"]);
});

Deno.test("hostLaunch() runs the script under deno run whatever the deno binary is called", async () => {
  const launch = await hostLaunch(fakeSys({ exec: "/usr/local/bin/deno-2.9", standalone: false }), {
    script: undefined,
    env: {},
  });
  assert.equal(launch.command[0], "/usr/local/bin/deno-2.9");
  assert.equal(launch.command[1], "run");
  assert.deepEqual(launch.command.slice(-3), [
    "/opt/moat/deno.json",
    "/opt/moat/main.ts",
    TOOL_HOST_COMMAND,
  ]);
  assert.ok(launch.readOnlyPaths.includes("/opt/moat"));
  assert.ok(launch.readOnlyPaths.includes("/cache/deno"));
});
