import assert from "node:assert/strict";
import { grantFlagHint } from "../../src/policy/grant_hints.ts";
import { defaultGrants, parseGrantFlags } from "../support/grants.ts";
import { createTempWorkspace } from "../support/workspace.ts";

Deno.test("grantFlagHint() names exactly the path asked for, never a directory above it", async () => {
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace({ "notes.txt": "" });
  const grants = defaultGrants(ws.dir);
  const hint = (access: "read" | "write", path: string) =>
    grantFlagHint(grants, { access, path }, { cwd: ws.dir });
  // ~/.ssh does not exist: the hint used to name the whole home directory.
  assert.equal(
    hint("read", home.path(".ssh/config")),
    `--allow-read=.,${home.path(".ssh/config")}`,
  );
  assert.equal(
    hint("write", home.path("a/b/new.txt")),
    `--allow-write=.,${home.path("a/b/new.txt")}`,
  );
  assert.equal(
    hint("read", home.path("missing/dir")),
    `--allow-read=.,${home.path("missing/dir")}`,
  );
  assert.equal(hint("read", "/no-such-root-dir/x"), "--allow-read=.,/no-such-root-dir/x");
});

Deno.test("grantFlagHint() says the same whether the path exists or not (no existence oracle)", async () => {
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const r = parseGrantFlags({ "allow-read": [`.,${home.dir}/granted`] }, { cwd: ws.dir });
  const grants = r.ok ? r.grants : assert.fail(r.error.message);
  const asked = [".ssh/config", "deep/er/file", "dir"].map((rel) => home.path(rel));
  const before = asked.map((path) =>
    grantFlagHint(grants, { access: "read", path }, { cwd: ws.dir })
  );
  await home.write({ ".ssh/config": "Host x\n", "deep/er/file": "", "dir/a": "" });
  const after = asked.map((path) =>
    grantFlagHint(grants, { access: "read", path }, { cwd: ws.dir })
  );
  assert.deepEqual(after, before);
  assert.equal(before[0], `--allow-read=.,${home.dir}/granted,${home.path(".ssh/config")}`);
});
