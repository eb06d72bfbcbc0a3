import assert from "node:assert/strict";
import { hostLaunch, type SandboxSys, TOOL_HOST_COMMAND } from "../../src/sandbox/mod.ts";

function fakeSys(runtime: { exec: string; standalone: boolean }): SandboxSys {
  const files = new Set(["/opt/moat/deno.json"]);
  const cache = new Set([
    "/cache/deno/npm/registry.npmjs.org/openai",
    "/cache/deno/npm/registry.npmjs.org/@sinclair/typebox",
    "/cache/deno/gen/file/opt/moat",
  ]);
  const lock = JSON.stringify({
    version: "5",
    // A key with a peer dependency names the package before its first version "@".
    npm: { "openai@7.59.0_zod@4.6.7": {}, "@sinclair/typebox@0.34.52": {}, "diff@8.0.2": {} },
  });
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
      lstat: (path) => cache.has(path) ? { kind: "dir" } : undefined,
      readTextFile: (path) => path === "/opt/moat/deno.lock" ? lock : undefined,
      readDirNames: () => undefined,
    } as SandboxSys["paths"],
    files: { createEmptyFile: unused } as unknown as SandboxSys["files"],
    mountPoints: { create: unused } as unknown as SandboxSys["mountPoints"],
    net: { listenUnix: unused } as unknown as SandboxSys["net"],
    tools: { fs: {}, process: {} } as unknown as SandboxSys["tools"],
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
  // Only moat's own packages (those in its lock that are cached) and its transpiled modules,
  // never the whole cache with other projects' code.
  assert.deepEqual(launch.readOnlyPaths, [
    "/usr/local/bin/deno-2.9",
    "/opt/moat",
    "/cache/deno/npm/registry.npmjs.org/openai",
    "/cache/deno/npm/registry.npmjs.org/@sinclair/typebox",
    "/cache/deno/gen/file/opt/moat",
  ]);
});
