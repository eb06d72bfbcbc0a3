import assert from "node:assert/strict";
import { computeProtection } from "../../src/policy/protected.ts";
import { moatCode } from "../../src/sandbox/moat_code.ts";
import { serverAccess } from "../../src/sandbox/_server_access.ts";
import { createDenoScanOps } from "../../src/sys/paths.ts";
import { defaultGrants } from "../support/grants.ts";
import { createTempWorkspace } from "../support/workspace.ts";

function runtime(
  main: string,
  standalone: boolean,
  cache: string | null = "/c/deno",
  exec = "/opt/deno/bin/deno",
) {
  return {
    execPath: () => exec,
    mainModule: () => main,
    standalone: () => standalone,
    cacheDir: (env: Record<string, string>) => env["DENO_DIR"] ?? cache ?? undefined,
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
  assert.deepEqual(moatCode(runtime("file:///m/main.ts", false, null), {}).map((c) => c.path), [
    "/opt/deno/bin/deno",
    "/m",
  ]);
});

Deno.test("moatCode() of a deno that npm installed: the outermost node_modules too (launcher, hardlinks)", () => {
  const exec = "/h/.npm/_npx/7a40/node_modules/deno/deno";
  assert.deepEqual(moatCode(runtime("file:///m/main.ts", false, null, exec), {}), [
    { path: exec, kind: "file" },
    { path: "/h/.npm/_npx/7a40/node_modules", kind: "dir" },
    { path: "/m", kind: "dir" },
  ]);
  const nested = "/p/node_modules/a/node_modules/deno/deno";
  assert.deepEqual(moatCode(runtime("file:///m/main.ts", true, null, nested), {}), [
    { path: nested, kind: "file" },
    { path: "/p/node_modules", kind: "dir" },
  ]);
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
