import assert from "node:assert/strict";
import { hostLaunch, type SandboxSys, TOOL_HOST_COMMAND } from "../../src/sandbox/mod.ts";
import {
  HOST_BUNDLE_FILES,
  HOST_BUNDLE_MANIFEST,
  hostBundleDigest,
} from "../../src/sandbox/host_bundle.ts";

const BASE_LOCK = {
  version: "5",
  // A key with a peer dependency names the package before its first version "@".
  npm: { "openai@7.59.0_zod@4.6.7": {}, "@sinclair/typebox@0.34.52": {}, "diff@8.0.2": {} },
};

function fakeSys(
  runtime: { exec: string; standalone: boolean },
  options: {
    hostLock?: unknown;
    cached?: string[];
    /** A bundle: its manifest's text and its inputs' texts now (paths from the checkout). */
    bundle?: { manifest: string; inputs: Record<string, string> };
  } = {},
): SandboxSys {
  const hostDir = "/opt/moat/src/sandbox/host";
  const files = new Set([
    "/opt/moat/deno.json",
    ...(options.hostLock === undefined ? [] : [`${hostDir}/host_config.json`]),
    ...(options.bundle === undefined
      ? []
      : Object.values(HOST_BUNDLE_FILES).map((f) => `${hostDir}/bundle/${f}`)),
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
    ...(options.bundle === undefined ? [] : [
      [`${hostDir}/bundle/${HOST_BUNDLE_MANIFEST}`, options.bundle.manifest] as [string, string],
      ...Object.entries(options.bundle.inputs).map((
        [p, t],
      ): [string, string] => [`/opt/moat/${p}`, t]),
    ]),
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

/** A bundle built from `inputs`, as scripts/host_bundle.ts writes its manifest. */
async function bundleOf(inputs: Record<string, string>): Promise<string> {
  const names = Object.keys(inputs).sort();
  const sha256 = await hostBundleDigest(names.map((n) => [n, inputs[n] as string]));
  return JSON.stringify({ inputs: names, sha256 });
}

Deno.test("hostLaunch() runs the tool host from its bundle, which is all its view shows of moat", async () => {
  const inputs = {
    "src/tools/read.ts": "export const a = 1;\n",
    "src/sandbox/host/host_lock.json": "{}",
  };
  const sys = fakeSys({ exec: "/usr/bin/deno", standalone: false }, {
    hostLock: { version: "5", npm: { "@sinclair/typebox@0.34.52": {} } },
    bundle: { manifest: await bundleOf(inputs), inputs },
  });
  const launch = await hostLaunch(sys, { script: undefined, env: {} });
  const dir = "/opt/moat/src/sandbox/host/bundle";
  assert.deepEqual(launch.bundle, {
    command: [
      "/usr/bin/deno",
      "run",
      ...launch.command.slice(2, -4),
      "--no-config",
      `${dir}/host.js`,
      TOOL_HOST_COMMAND,
    ],
    // Neither the rest of moat's checkout nor an npm package nor Deno's cache: the bundle holds them.
    readOnlyPaths: ["/usr/bin/deno", dir],
    workerUrl: `file://${dir}/worker.js`,
    helperUrl: `file://${dir}/grep_worker.js`,
  });
  // An MCP server's forwarder still runs from the sources.
  assert.deepEqual(launch.command.slice(-2), ["/opt/moat/main.ts", TOOL_HOST_COMMAND]);
  // A sandbox whose tools Worker is substituted (a test's) asks for none.
  assert.equal(
    (await hostLaunch(sys, { script: undefined, env: {}, bundle: false })).bundle,
    undefined,
  );
});

Deno.test("hostLaunch() leaves a bundle whose inputs changed since it was built: the host runs from the sources", async () => {
  const built = { "src/tools/read.ts": "export const a = 1;\n" };
  const manifest = await bundleOf(built);
  for (
    const now of [{ "src/tools/read.ts": "export const a = 2;\n" }, {}] as Record<string, string>[]
  ) {
    const sys = fakeSys({ exec: "/usr/bin/deno", standalone: false }, {
      bundle: { manifest, inputs: now },
    });
    const launch = await hostLaunch(sys, { script: undefined, env: {} });
    assert.equal(launch.bundle, undefined);
  }
  // An unreadable manifest is no bundle either.
  const sys = fakeSys({ exec: "/usr/bin/deno", standalone: false }, {
    bundle: { manifest: "{", inputs: built },
  });
  assert.equal((await hostLaunch(sys, { script: undefined, env: {} })).bundle, undefined);
});
