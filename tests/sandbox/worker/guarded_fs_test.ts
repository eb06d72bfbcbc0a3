import assert from "node:assert/strict";
import { defaultGrants, type Grants } from "../../support/grants.ts";
import { guardFsOps } from "../../../src/sandbox/worker/_guarded_fs.ts";
import { createDenoFsOps } from "../../../src/sys/fs.ts";
import { FsError } from "../../../src/tools/ops.ts";
import { createTempWorkspace } from "../../support/workspace.ts";
import { callTool, createLayout, MODES, openSandbox, SECRET, textOf } from "../_helpers.ts";

function isCode(code: string) {
  return (e: unknown) => e instanceof FsError && e.code === code;
}

Deno.test("guardFsOps() refuses deny-listed files and directories to opens, walks and writes", async () => {
  await using ws = await createTempWorkspace({
    ".env": "KEY=1\n",
    "secret/k.txt": "k\n",
    "locked.txt": "keep\n",
    "ok.txt": "fine\n",
  });
  const fs = guardFsOps(createDenoFsOps(), {
    denyRead: [ws.path(".env"), ws.path("secret")],
    denyWrite: [ws.path("locked.txt")],
  });
  await assert.rejects(fs.openFile(ws.path(".env")), isCode("not_granted"));
  await assert.rejects(fs.readFile(ws.path("secret/k.txt")), isCode("not_granted"));
  assert.throws(() => fs.openWalkedFileSync!(ws.path(".env")), isCode("not_granted"));
  assert.throws(() => fs.readDirSync!(ws.path("secret")), isCode("not_granted"));
  await assert.rejects(async () => {
    for await (const _ of fs.readDir(ws.path("secret"))) { /* listing must fail */ }
  }, isCode("not_granted"));
  await assert.rejects(
    fs.writeFile(ws.path("locked.txt"), new TextEncoder().encode("changed")),
    isCode("not_granted"),
  );
  assert.equal(await Deno.readTextFile(ws.path("locked.txt")), "keep\n");
  // A symlink to a denied file is refused by where it leads.
  await Deno.symlink(ws.path(".env"), ws.path("alias"));
  await assert.rejects(fs.openFile(ws.path("alias")), isCode("not_granted"));
  assert.equal(new TextDecoder().decode(await fs.readFile(ws.path("ok.txt"))), "fine\n");
  const walked = fs.openWalkedFileSync!(ws.path("ok.txt"));
  walked.close();
});

Deno.test("guardFsOps() refuses writes to protected paths, found or by pattern, unless carved out", async () => {
  await using ws = await createTempWorkspace({ ".git/hooks/pre-commit": "old\n", "ok.txt": "" });
  const protection = {
    workspace: ws.dir,
    paths: [{ path: ws.path(".git/hooks"), why: "hooks" as const, kind: "dir" as const }],
    anchors: [],
    named: [ws.path(".git/hooks/pre-commit")],
    flags: { allowAll: false, write: [ws.dir] },
  };
  const fs = guardFsOps(createDenoFsOps(), { denyRead: [], denyWrite: [], protection });
  const bytes = new TextEncoder().encode("new\n");
  await assert.rejects(
    fs.writeFile(ws.path(".git/hooks/post-commit"), bytes),
    (e) =>
      e instanceof FsError && e.code === "protected" &&
      e.message === `Writing "${ws.path(".git/hooks/post-commit")}" is refused: ` +
          `"${ws.path(".git/hooks")}" is protected because git runs it outside the sandbox; ` +
          "to allow it, add it to --allow-write (e.g. --allow-write=.,.git/hooks)",
  );
  await assert.rejects(
    fs.writeFile(ws.path(".moat/config.json"), bytes, { createParents: true }),
    isCode("protected"),
  );
  await assert.rejects(Deno.lstat(ws.path(".moat")), Deno.errors.NotFound, "no parent created");
  // A symlink into .git is refused by where it leads.
  await Deno.symlink(ws.path(".git"), ws.path("g"));
  await assert.rejects(fs.writeFile(ws.path("g/config"), bytes), isCode("protected"));
  // The named hook is carved out; other files are not protected.
  await fs.writeFile(ws.path(".git/hooks/pre-commit"), bytes);
  assert.equal(await Deno.readTextFile(ws.path(".git/hooks/pre-commit")), "new\n");
  await fs.writeFile(ws.path("ok.txt"), bytes);
});

for (const mode of MODES) {
  Deno.test(`[${mode}] --deny-read=.env: read is blocked and grep over the workspace never returns it`, async () => {
    const layout = await createLayout({ ".env": `API=${SECRET}\n`, "src/x.ts": "API usage\n" });
    await using _ = layout.root;
    const base = defaultGrants(layout.ws);
    const grants: Grants = { ...base, denyRead: [`${layout.ws}/.env`, `${layout.ws}/later.env`] };
    const sb = await openSandbox(layout, mode, grants);
    try {
      const read = await callTool(sb, "read", { path: ".env" });
      assert.deepEqual(read, {
        blocked: `read access to "${layout.ws}/.env" is denied by --deny-read`,
      });
      for (const policy of [true, false]) {
        const grep = textOf(await callTool(sb, "grep", { pattern: "API" }, { policy }));
        assert.ok(!grep.includes(SECRET), `grep leaked .env (policy ${policy}): ${grep}`);
        assert.match(grep, /src\/x\.ts/);
        assert.ok(
          !textOf(await callTool(sb, "read", { path: ".env" }, { policy })).includes(SECRET),
        );
      }
      // A deny-listed file created after the start (not masked in the OS view) stays unreadable.
      await Deno.writeTextFile(`${layout.ws}/later.env`, `LATE=${SECRET}\n`);
      const late = textOf(await callTool(sb, "grep", { pattern: "LATE" }));
      assert.ok(!late.includes(SECRET), late);
    } finally {
      await sb.close();
    }
  });
}
