import assert from "node:assert/strict";
import { createDenoFsOps } from "../../src/sys/fs.ts";
import { FsError } from "../../src/tools/ops.ts";
import { createTempWorkspace } from "../support/workspace.ts";

Deno.test("createDenoFsOps({confined}) opens a walked file without the race checks, info on demand", async () => {
  await using ws = await createTempWorkspace({ "f.txt": "data\n", "d/x": "" });
  let checked = 0;
  const fs = createDenoFsOps({ confined: true, beforeWalkedOpen: () => checked++ });
  const h = fs.openWalkedFileSync!(ws.path("f.txt"));
  const buf = new Uint8Array(64);
  assert.equal(h.readSync(buf), 5);
  assert.equal(h.readSync(buf), null);
  assert.equal(h.info.size, 5, "fetched when asked for");
  assert.equal(h.info.isFile, true);
  h.close();
  assert.equal(checked, 0, "no lstat-then-open sequence");
  // A directory opens, but reading it fails like any unreadable file.
  const d = fs.openWalkedFileSync!(ws.path("d"));
  assert.throws(() => d.readSync(buf), (e) => e instanceof FsError && e.code === "is_a_directory");
  d.close();
});

Deno.test("createDenoFsOps() keeps the walked-open race check when confined is set with recheckRealPath", async () => {
  await using ws = await createTempWorkspace({ "a.txt": "harmless\n" });
  await using outside = await createTempWorkspace({ "secret.txt": "SECRET\n" });
  const fs = createDenoFsOps({
    confined: true,
    recheckRealPath: true,
    beforeWalkedOpen: (path) => {
      Deno.removeSync(path);
      Deno.symlinkSync(outside.path("secret.txt"), path);
    },
  });
  assert.throws(
    () => fs.openWalkedFileSync!(ws.path("a.txt")),
    (e) => e instanceof FsError && e.code === "changed",
  );
});
