import assert from "node:assert/strict";
import { computeProtection } from "../../src/policy/protected.ts";
import { moatCode } from "../../src/sandbox/moat_code.ts";
import { configFlag } from "../../src/sys/runtime.ts";
import { serverAccess } from "../../src/sandbox/_server_access.ts";
import { createDenoScanOps } from "../../src/sys/paths.ts";
import { defaultGrants } from "../support/grants.ts";
import { createTempWorkspace } from "../support/workspace.ts";

function runtime(
  main: string,
  standalone: boolean,
  options: { cache?: string | null; exec?: string; config?: string } = {},
) {
  return {
    execPath: () => options.exec ?? "/opt/deno/bin/deno",
    mainModule: () => main,
    standalone: () => standalone,
    cacheDir: (env: Record<string, string>) =>
      env["DENO_DIR"] ?? (options.cache === null ? undefined : options.cache ?? "/c/deno"),
    configFile: () => options.config,
  };
}

Deno.test("moatCode() under deno run: the executable, the main module's directory and Deno's cache", () => {
  assert.deepEqual(moatCode(runtime("file:///home/u/moat/main.ts", false), {}), [
    { path: "/opt/deno/bin/deno", kind: "file" },
    { path: "/home/u/moat", kind: "dir" },
    { path: "/c/deno", kind: "dir" },
  ]);
  // The cache as moat's environment names it.
  assert.deepEqual(
    moatCode(runtime("file:///m/main.ts", false), { DENO_DIR: "/d" }).at(-1),
    { path: "/d", kind: "dir" },
  );
  // A remote main module lives in the cache; no cache known: the executable and checkout only.
  assert.deepEqual(moatCode(runtime("https://example.com/main.ts", false), {}).map((c) => c.path), [
    "/opt/deno/bin/deno",
    "/c/deno",
  ]);
  assert.deepEqual(
    moatCode(runtime("file:///m/main.ts", false, { cache: null }), {}).map((c) => c.path),
    [
      "/opt/deno/bin/deno",
      "/m",
    ],
  );
});

Deno.test("moatCode() of a deno that npm installed: the outermost node_modules too (launcher, hardlinks)", () => {
  const exec = "/h/.npm/_npx/7a40/node_modules/deno/deno";
  assert.deepEqual(moatCode(runtime("file:///m/main.ts", false, { cache: null, exec }), {}), [
    { path: exec, kind: "file" },
    { path: "/h/.npm/_npx/7a40/node_modules", kind: "dir" },
    { path: "/m", kind: "dir" },
  ]);
  const nested = "/p/node_modules/a/node_modules/deno/deno";
  assert.deepEqual(moatCode(runtime("file:///m/main.ts", true, { exec: nested }), {}), [
    { path: nested, kind: "file" },
    { path: "/p/node_modules", kind: "dir" },
  ]);
});

Deno.test("moatCode() under deno run --config: that config's directory, and the command script of deno install", () => {
  const installed = runtime("file:///src/moat/main.ts", false, {
    cache: null,
    config: "/h/.deno/bin/.moat/deno.json",
  });
  assert.deepEqual(moatCode(installed, {}).slice(2), [
    { path: "/h/.deno/bin/.moat", kind: "dir" },
    { path: "/h/.deno/bin/moat", kind: "file" },
  ]);
  // `deno task start`, the tests: the checkout's own config (no command script next to it).
  const checkout = runtime("file:///src/moat/main.ts", false, {
    cache: null,
    config: "/src/moat/deno.json",
  });
  assert.deepEqual(moatCode(checkout, {}).map((c) => c.path), [
    "/opt/deno/bin/deno",
    "/src/moat",
  ]);
});

Deno.test("configFlag() reads --config and -c before the main module only", () => {
  const options = { mainModule: "file:///m/main.ts", cwd: "/w" };
  const flag = (argv: string[]) => configFlag(argv, options);
  assert.equal(
    flag(["deno", "run", "-A", "--config", "/c/deno.json", "/m/main.ts"]),
    "/c/deno.json",
  );
  assert.equal(
    flag(["deno", "run", "--config=rel/deno.json", "file:///m/main.ts"]),
    "/w/rel/deno.json",
  );
  assert.equal(flag(["deno", "run", "-c", "../m/deno.json", "../m/main.ts", "x"]), "/m/deno.json");
  assert.equal(flag(["deno", "run", "-A", "/m/main.ts", "--config", "/moat/own.json"]), undefined);
  assert.equal(flag(["deno", "run", "-A", "/other.ts", "--config", "/c.json"]), undefined);
});

Deno.test("moatCode() in a compiled binary: the binary itself, which embeds moat's code", () => {
  assert.deepEqual(moatCode(runtime("file:///tmp/deno-compile-moat/main.ts", true), {}), [
    { path: "/opt/deno/bin/deno", kind: "file" },
  ]);
});

Deno.test("serverAccess() keeps moat's code read-only for an MCP server whose write paths hold it", async () => {
  await using root = await createTempWorkspace({ "ws/a.txt": "", "moat/main.ts": "" });
  const ws = root.path("ws");
  const ops = createDenoScanOps();
  const grants = defaultGrants(ws);
  const code = [{ path: root.path("moat"), kind: "dir" as const }];
  const { protection } = computeProtection(grants, { workspace: ws, env: {}, ops, code });
  assert.ok(!protection.paths.some((p) => p.why === "moat_code"));
  const widened = serverAccess({ grants, protection }, [root.dir], {
    workspace: ws,
    env: {},
    code,
    ops,
  });
  assert.deepEqual(
    widened.protection.paths.filter((p) => p.why === "moat_code").map((p) => p.path),
    [root.path("moat")],
  );
});
