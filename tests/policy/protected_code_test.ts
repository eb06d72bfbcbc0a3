/**
 * moat's own code as protected paths (src/policy/protected.ts "moat_code"): the executable, the
 * checkout and Deno's cache stay read-only inside a write grant around them, a carve-out lifts
 * them, and nothing changes when they lie outside every grant.
 */
import assert from "node:assert/strict";
import { defaultGrants, type Grants, grantsOf } from "../support/grants.ts";
import {
  computeProtection,
  findProtection,
  type MoatCodePath,
  protectedDetail,
  type Protection,
} from "../../src/policy/protected.ts";
import { createDenoScanOps } from "../../src/sys/paths.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";

const ops = createDenoScanOps();

/** A root with a workspace, a fake moat checkout, a fake Deno cache and a fake deno binary. */
function fakeMoat(): Promise<TempWorkspace> {
  return createTempWorkspace({
    "ws/a.txt": "a\n",
    "moat/main.ts": "// moat\n",
    "moat/deno.json": "{}\n",
    "moat/src/cli/main.ts": "export {};\n",
    "cache/deno/npm/registry.npmjs.org/openai/7.59.0/index.js": "",
    "bin/deno": "",
  });
}

function codeOf(root: TempWorkspace): MoatCodePath[] {
  return [
    { path: root.path("bin/deno"), kind: "file" },
    { path: root.path("moat"), kind: "dir" },
    { path: root.path("cache/deno"), kind: "dir" },
  ];
}

function compute(grants: Grants, workspace: string, code: MoatCodePath[]): Protection {
  return computeProtection(grants, { workspace, env: { HOME: "/nonexistent" }, ops, code })
    .protection;
}

/** The moat_code rows `path kind`, relative to the root. */
function codeRows(root: TempWorkspace, protection: Protection): string[] {
  return protection.paths.filter((p) => p.why === "moat_code")
    .map((p) => `${p.path.replace(root.dir + "/", "")} ${p.kind}`);
}

Deno.test("computeProtection() protects moat's executable, checkout and Deno cache inside a write grant, and the denial says why", async () => {
  await using root = await fakeMoat();
  const ws = root.path("ws");
  const protection = compute(grantsOf(ws, { "allow-write": [root.dir] }), ws, codeOf(root));
  assert.deepEqual(codeRows(root, protection), ["bin/deno file", "cache/deno dir", "moat dir"]);
  const hit = findProtection(protection, root.path("moat/src/cli/main.ts"));
  assert.deepEqual(hit, { path: root.path("moat"), why: "moat_code" });
  assert.equal(
    protectedDetail(protection, hit!),
    `"${root.path("moat")}" is protected because it holds code moat runs outside the sandbox; ` +
      `to allow it, add it to --allow-write (e.g. --allow-write=${root.dir},${root.path("moat")})`,
  );
  // A new file in the checkout (a package.json Deno would read) and in the cache, too.
  assert.equal(findProtection(protection, root.path("moat/package.json"))?.why, "moat_code");
  assert.equal(findProtection(protection, root.path("cache/deno/npm/x.js"))?.why, "moat_code");
  assert.equal(findProtection(protection, root.path("bin/deno"))?.why, "moat_code");
  assert.equal(findProtection(protection, root.path("bin/other")), undefined);
  assert.equal(findProtection(protection, root.path("ws/a.txt")), undefined);
});

Deno.test("computeProtection() leaves moat's code out when it lies outside every write grant", async () => {
  await using root = await fakeMoat();
  const ws = root.path("ws");
  const grants = defaultGrants(ws);
  const without = computeProtection(grants, { workspace: ws, env: { HOME: "/nonexistent" }, ops });
  assert.deepEqual(compute(grants, ws, codeOf(root)), without.protection);
  // The same code is protected as soon as a grant holds it: the comparison above means something.
  const parent = compute({ ...grants, write: [root.dir] }, ws, codeOf(root));
  assert.equal(codeRows(root, parent).length, 3);
});

Deno.test("computeProtection() finds moat's code at its real path, through a symlinked checkout", async () => {
  await using root = await fakeMoat();
  await Deno.symlink(root.path("moat"), root.path("moat-link"));
  const ws = root.path("ws");
  const { protection, warnings } = computeProtection(
    grantsOf(ws, { "allow-write": [root.dir] }),
    { workspace: ws, env: {}, ops, code: [{ path: root.path("moat-link"), kind: "dir" }] },
  );
  assert.deepEqual(codeRows(root, protection), ["moat dir"]);
  // bash could point the link elsewhere: the user hears of it.
  assert.match(warnings.join("\n"), /moat-link" is a symlink/);
});

Deno.test("an --allow-write= value naming moat's checkout (or a folder in it) lifts it, and only it", async () => {
  await using root = await fakeMoat();
  const moat = root.path("moat");
  // A user developing moat: the workspace is the checkout, `--allow-write=.` names it.
  const dot = compute(grantsOf(moat, { "allow-write": ["."] }), moat, codeOf(root));
  assert.equal(findProtection(dot, root.path("moat/src/cli/main.ts")), undefined);
  assert.equal(findProtection(dot, root.path("moat/main.ts")), undefined);
  // `--allow-write=src` in the checkout: the checkout is not inside the grant, src is writable.
  const src = compute(grantsOf(moat, { "allow-write": ["src"] }), moat, codeOf(root));
  assert.deepEqual(codeRows(root, src), []);
  assert.equal(findProtection(src, root.path("moat/src/cli/main.ts")), undefined);
  // A grant around the checkout and a carve-out of it: the cache and the executable stay.
  const carved = compute(
    grantsOf(root.path("ws"), { "allow-write": [root.dir, moat] }),
    root.path("ws"),
    codeOf(root),
  );
  assert.equal(findProtection(carved, root.path("moat/src/cli/main.ts")), undefined);
  assert.equal(findProtection(carved, root.path("cache/deno/npm/x.js"))?.why, "moat_code");
  assert.equal(findProtection(carved, root.path("bin/deno"))?.why, "moat_code");
  // Writing everything (bare --allow-write) in the checkout names nothing: it stays protected.
  const all = compute({ ...defaultGrants(moat), write: true }, moat, codeOf(root));
  assert.equal(findProtection(all, root.path("moat/main.ts"))?.why, "moat_code");
  assert.match(
    protectedDetail(all, findProtection(all, root.path("moat/main.ts"))!),
    /to allow it, add it to --allow-write \(e\.g\. --allow-write=\/,\.\)$/,
  );
});
