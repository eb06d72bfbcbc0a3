import assert from "node:assert/strict";
import { expandHome, resolveHome } from "../../src/policy/home.ts";
import { createDenoPathOps } from "../../src/sys/paths.ts";
import { createTempWorkspace } from "../support/workspace.ts";

Deno.test("resolveHome() gives HOME's real path: a symlink, a trailing slash and '..' resolved", async () => {
  await using base = await createTempWorkspace({ "real/home/a": "" });
  await Deno.symlink(base.path("real/home"), base.path("linked"));
  const paths = createDenoPathOps();
  for (
    const raw of [base.path("linked"), `${base.path("linked")}/`, `${base.dir}/real//x/../home/`]
  ) {
    assert.deepEqual(resolveHome(raw, paths), { ok: true, path: base.path("real/home") }, raw);
  }
  // A HOME that does not exist is kept, normalised: `~/x` then names a path that does not exist.
  assert.deepEqual(resolveHome(`${base.dir}/gone/`, paths), { ok: true, path: base.path("gone") });
});

Deno.test("resolveHome() says why an unset, empty or relative HOME cannot expand ~", () => {
  const paths = createDenoPathOps();
  assert.deepEqual(resolveHome(undefined, paths), { ok: false, reason: "HOME is not set" });
  assert.deepEqual(resolveHome("", paths), { ok: false, reason: "HOME is not set" });
  assert.deepEqual(resolveHome("me", paths), {
    ok: false,
    reason: `HOME ("me") is not an absolute path`,
  });
  const expanded = expandHome("~/x", resolveHome("me", paths));
  assert.ok(!expanded.ok);
  assert.match(expanded.reason, /^HOME \("me"\) is not an absolute path; write the path in full/);
  assert.deepEqual(expandHome("x/~", resolveHome("me", paths)), { ok: true, path: "x/~" });
});
