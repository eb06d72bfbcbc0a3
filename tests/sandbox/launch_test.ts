import assert from "node:assert/strict";
import { hostLaunch, type SandboxSys, TOOL_HOST_COMMAND } from "../../src/sandbox/mod.ts";

const BASE_LOCK = {
  version: "5",
  // A key with a peer dependency names the package before its first version "@".
  npm: { "openai@7.59.0_zod@4.6.7": {}, "@sinclair/typebox@0.34.52": {}, "diff@8.0.2": {} },
};

function fakeSys(
  runtime: { exec: string; standalone: boolean },
  options: { hostLock?: unknown; cached?: string[] } = {},
): SandboxSys {
  const hostDir = "/opt/moat/src/sandbox/host";
  const files = new Set([
    "/opt/moat/deno.json",
    ...(options.hostLock === undefined ? [] : [`${hostDir}/host_config.json`]),
  ]);
  const cache = new Set([
    "/cache/deno/npm/registry.npmjs.org/openai",
    "/cache/deno/npm/registry.npmjs.org/@sinclair/typebox",
    "/cache/deno/gen/file/opt/moat",
    ...(options.cached ?? []).map((name) => `/cache/deno/npm/registry.npmjs.org/${name}`),
  ]);
  const texts = new Map([
    ["/opt/moat/deno.lock", JSON.stringify(BASE_LOCK)],
    [`${hostDir}/host_lock.json`, JSON.stringify(options.hostLock)],
  ]);
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
      cacheDir: () => "/cache/deno",
      configFile: () => undefined,
    },
    paths: {
      realPath: (path) => ({ ok: true, path }),
      stat: (path) => files.has(path) ? { kind: "file" } : undefined,
      lstat: (path) => cache.has(path) ? { kind: "dir" } : undefined,
      readTextFile: (path) => texts.get(path),
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
  assert.deepEqual(launch.hostReadOnlyPaths, ["/usr/local/bin/moat"]);
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
  // Without the host's own config (an older checkout), the host sees the same.
  assert.deepEqual(launch.hostReadOnlyPaths, launch.readOnlyPaths);
});

Deno.test("hostLaunch() runs the tool host with its own lock, its view with only its packages", async () => {
  // As scripts/host_config.ts writes it: the host's packages and what they depend on.
  const hostLock = {
    version: "5",
    npm: { "@sinclair/typebox@0.34.52": {}, "linkedom@0.18.15": {}, "htmlparser2@10.1.0": {} },
  };
  const cached = ["linkedom", "htmlparser2", "diff"];
  const sys = fakeSys({ exec: "/usr/bin/deno", standalone: false }, { hostLock, cached });
  const launch = await hostLaunch(sys, { script: undefined, env: {} });
  assert.deepEqual(launch.command.slice(-4), [
    "--config",
    "/opt/moat/src/sandbox/host/host_config.json",
    "/opt/moat/main.ts",
    TOOL_HOST_COMMAND,
  ]);
  const npm = "/cache/deno/npm/registry.npmjs.org";
  // The tool host: not the model SDK nor anything else only the CLI needs (each mount costs).
  assert.deepEqual(launch.hostReadOnlyPaths, [
    "/usr/bin/deno",
    "/opt/moat",
    ...["@sinclair/typebox", "linkedom", "htmlparser2"].map((n) => `${npm}/${n}`),
    "/cache/deno/gen/file/opt/moat",
  ]);
  // A confined MCP server still sees every package of moat's lock.
  assert.deepEqual(launch.readOnlyPaths, [
    "/usr/bin/deno",
    "/opt/moat",
    ...["openai", "@sinclair/typebox", "diff"].map((n) => `${npm}/${n}`),
    "/cache/deno/gen/file/opt/moat",
  ]);
});
