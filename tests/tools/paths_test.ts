import assert from "node:assert/strict";
import { fsFailure, PathError, pathResolver, resolvePath } from "../../src/tools/paths.ts";
import { FsError } from "../../src/tools/ops.ts";
import { MemoryFs } from "../support/memory_fs.ts";

Deno.test("resolvePath() expands ~ and ~/… with the home it is given, relative paths against cwd", () => {
  assert.equal(resolvePath("/ws", "~", { home: "/home/me" }), "/home/me");
  assert.equal(resolvePath("/ws", "~/", { home: "/home/me" }), "/home/me");
  assert.equal(resolvePath("/ws", "~/a/../b.txt", { home: "/home/me" }), "/home/me/b.txt");
  assert.equal(resolvePath("/ws", "src/~a", { home: "/home/me" }), "/ws/src/~a");
  assert.equal(resolvePath("/ws", "./~root/a", { home: "/home/me" }), "/ws/~root/a");
});

Deno.test("resolvePath() refuses ~user, ~+ and ~- instead of reading them as names in cwd", () => {
  for (const p of ["~root/a.txt", "~root", "~+/x", "~-"]) {
    assert.throws(
      () => resolvePath("/ws", p, { home: "/home/me" }),
      (e: unknown) =>
        e instanceof PathError &&
        /^Cannot expand "~" in ".*": only "~" and "~\/…" are expanded \(to HOME\)/.test(
          e.message,
        ) &&
        e.message.includes(`"./${p}"`),
      p,
    );
  }
});

Deno.test("pathResolver() takes no relative home and normalises a trailing slash", () => {
  const fs = new MemoryFs();
  const slash = pathResolver("/ws", fs, { home: "/home/me/" });
  assert.equal(slash("~/a.txt"), "/home/me/a.txt");
  const relative = pathResolver("/ws", fs, { home: "me" });
  assert.throws(() => relative("~/a.txt"), /HOME is not set to an absolute path; write the path/);
  const none = pathResolver("/ws", Object.assign(new MemoryFs(), { homeDir: () => undefined }));
  assert.throws(() => none("~/a.txt"), PathError);
});

Deno.test("fsFailure() does not call a directory it cannot list empty", async () => {
  const fs = new MemoryFs({ "/home/me/.ssh/known_hosts": "key\n" });
  fs.faults.push({ op: "readDir", path: "/home/me/.ssh", code: "not_granted" });
  const missing = new FsError("not_found", "/home/me/.ssh/config", "gone");
  const message = await fsFailure(fs, missing, {
    cwd: "/ws",
    absPath: "/home/me/.ssh/config",
    verb: "read",
  });
  assert.equal(message, `File not found: "/home/me/.ssh/config"`);
});
