import assert from "node:assert/strict";
import { createDenoFsOps } from "../../src/sys/fs.ts";
import { checkOpenedIdentity, toFsError } from "../../src/sys/fs_common.ts";
import { type FileInfo, FsError, type SyncFileHandle } from "../../src/tools/ops.ts";
import { createReadTool } from "../../src/tools/read.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { call } from "../tools/_helpers.ts";

const file = (over: Partial<FileInfo> = {}): FileInfo => ({
  isFile: true,
  isDirectory: false,
  isSymlink: false,
  size: 1,
  mode: 0o644,
  dev: 7,
  ino: 42,
  ...over,
});

function assertChanged(fn: () => unknown) {
  assert.throws(fn, (e) => e instanceof FsError && e.code === "changed");
}

Deno.test("checkOpenedIdentity() accepts the same regular file", () => {
  checkOpenedIdentity(file(), file(), "/a");
});

Deno.test("checkOpenedIdentity() refuses a different inode, device, a symlink or a non-file", () => {
  assertChanged(() => checkOpenedIdentity(file(), file({ ino: 43 }), "/a"));
  assertChanged(() => checkOpenedIdentity(file(), file({ dev: 8 }), "/a"));
  assertChanged(() => checkOpenedIdentity(file(), file({ isSymlink: true, isFile: false }), "/a"));
  assertChanged(() =>
    checkOpenedIdentity(file({ isFile: false, isDirectory: true }), file(), "/a")
  );
});

Deno.test("toFsError() maps Deno errors to codes", () => {
  assert.equal(toFsError(new Deno.errors.NotCapable("no"), "/x").code, "not_granted");
  assert.equal(toFsError(new Deno.errors.NotFound("no"), "/x").code, "not_found");
  assert.equal(toFsError(new Deno.errors.PermissionDenied("no"), "/x").code, "permission_denied");
  assert.equal(toFsError(new Deno.errors.IsADirectory("no"), "/x").code, "is_a_directory");
});

Deno.test("openFile() refuses a file swapped for a symlink to a secret between open and check", async () => {
  await using ws = await createTempWorkspace({ "a.txt": "harmless\n" });
  await using outside = await createTempWorkspace({ "secret.txt": "SECRET\n" });
  let swapped = 0;
  const fs = createDenoFsOps({
    afterOpen: async (real) => {
      if (swapped++ > 0) return;
      await Deno.remove(real);
      await Deno.symlink(outside.path("secret.txt"), real);
    },
  });
  await assert.rejects(
    () => fs.openFile(ws.path("a.txt")),
    (e) => e instanceof FsError && e.code === "changed",
  );
  // Opened again, the path now resolves through the symlink (the policy layer judges that path).
  const handle = await fs.openFile(ws.path("a.txt"));
  assert.equal(handle.path, outside.path("secret.txt"));
  handle.close();
});

Deno.test("read() reports a file replaced during open as a refused race and returns no content", async () => {
  await using ws = await createTempWorkspace({ "a.txt": "first\n", "b.txt": "second\n" });
  const fs = createDenoFsOps({
    afterOpen: (real) => real.endsWith("a.txt") ? Deno.rename(ws.path("b.txt"), real) : undefined,
  });
  const r = await call(createReadTool({ cwd: ws.dir, fs }), { path: "a.txt" });
  assert.equal(r.isError, true);
  assert.equal(
    r.output,
    'Refused: "a.txt" changed while being opened (possible symlink race); try again once the file is stable',
  );
});

Deno.test("openFile() refuses a FIFO without blocking and reads by real path", async () => {
  await using ws = await createTempWorkspace({ "real.txt": "data" });
  await Deno.symlink(ws.path("real.txt"), ws.path("link.txt"));
  const fs = createDenoFsOps();
  const mk = await new Deno.Command("mkfifo", { args: [ws.path("pipe")] }).output();
  assert.ok(mk.success);
  await assert.rejects(
    () => fs.openFile(ws.path("pipe")),
    (e) => e instanceof FsError && e.code === "not_a_file",
  );
  const h = await fs.openFile(ws.path("link.txt"));
  assert.equal(h.path, ws.path("real.txt"));
  h.close();
  await assert.rejects(
    () => fs.readFile(ws.path("real.txt"), { maxBytes: 2 }),
    (e) => e instanceof FsError && e.code === "too_large",
  );
});

Deno.test("writeFile() writes the resolved real path and never through a dangling symlink", async () => {
  await using ws = await createTempWorkspace({ "target.txt": "old" });
  await using outside = await createTempWorkspace();
  await Deno.symlink(ws.path("target.txt"), ws.path("link.txt"));
  await Deno.symlink(outside.path("planted.txt"), ws.path("dangling.txt"));
  const fs = createDenoFsOps();
  const viaLink = await fs.writeFile(ws.path("link.txt"), new TextEncoder().encode("new"));
  assert.deepEqual(viaLink, { path: ws.path("target.txt"), created: false });
  assert.equal(await Deno.readTextFile(ws.path("target.txt")), "new");
  assert.ok((await Deno.lstat(ws.path("link.txt"))).isSymlink);
  const dangling = await fs.writeFile(ws.path("dangling.txt"), new TextEncoder().encode("x"));
  assert.equal(dangling.path, ws.path("dangling.txt"));
  assert.ok((await Deno.lstat(ws.path("dangling.txt"))).isFile);
  await assert.rejects(() => Deno.lstat(outside.path("planted.txt")), Deno.errors.NotFound);
  await assert.rejects(
    () => fs.writeFile(ws.path("missing/dir/f.txt"), new Uint8Array()),
    (e) => e instanceof FsError && e.code === "not_found",
  );
});

Deno.test("openWalkedFileSync() refuses a file swapped for a symlink to a secret before the open", async () => {
  await using ws = await createTempWorkspace({ "a.txt": "harmless\n" });
  await using outside = await createTempWorkspace({ "secret.txt": "SECRET\n" });
  const fs = createDenoFsOps({
    beforeWalkedOpen: (path) => {
      Deno.removeSync(path);
      Deno.symlinkSync(outside.path("secret.txt"), path);
    },
  });
  assert.throws(
    () => fs.openWalkedFileSync?.(ws.path("a.txt")),
    (e) => e instanceof FsError && e.code === "changed",
  );
});

Deno.test("openWalkedFileSync() reads a regular file and refuses a FIFO, a directory and a symlink", async () => {
  await using ws = await createTempWorkspace({ "f.txt": "data\n", "d/x": "" });
  await Deno.symlink(ws.path("f.txt"), ws.path("link.txt"));
  const mk = await new Deno.Command("mkfifo", { args: [ws.path("pipe")] }).output();
  assert.ok(mk.success);
  const fs = createDenoFsOps();
  const open = (rel: string) =>
    (fs.openWalkedFileSync as (p: string) => SyncFileHandle)(ws.path(rel));
  const h = open("f.txt");
  const buf = new Uint8Array(64);
  assert.equal(h.readSync(buf), 5);
  assert.equal(h.info.size, 5);
  h.close();
  h.close();
  const code = (rel: string) => {
    try {
      open(rel).close();
      return "opened";
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return e.code;
    }
  };
  assert.equal(code("pipe"), "not_a_file");
  assert.equal(code("d"), "is_a_directory");
  assert.equal(code("link.txt"), "not_a_file");
  assert.equal(code("missing.txt"), "not_found");
  assert.deepEqual(fs.readDirSync?.(ws.path("d")).map((e) => e.name), ["x"]);
});

Deno.test("createDenoFsOps({recheckRealPath}) refuses a file opened through a parent swapped for a symlink", async () => {
  await using root = await createTempWorkspace({
    "ws/sub/f.txt": "benign\n",
    "outside/f.txt": "secret\n",
  });
  const inside = root.path("ws/sub/f.txt");
  const isChanged = (e: unknown) => e instanceof FsError && e.code === "changed";
  const swapToSymlink = async () => {
    await Deno.rename(root.path("ws/sub"), root.path("ws/real"));
    await Deno.symlink(root.path("outside"), root.path("ws/sub"));
  };
  const swapBack = async () => {
    await Deno.remove(root.path("ws/sub"));
    await Deno.rename(root.path("ws/real"), root.path("ws/sub"));
  };
  const readAll = async (fs: ReturnType<typeof createDenoFsOps>) =>
    new TextDecoder().decode(await fs.readFile(inside));

  // Swapped for the open and back before the check: the path is real again, but another file.
  await assert.rejects(
    readAll(createDenoFsOps({ beforeOpen: swapToSymlink, afterOpen: swapBack })),
    isChanged,
  );
  // Swapped between the check and the open: the open and the lstat both go through the symlink.
  const swapped = { beforeOpen: swapToSymlink };
  await assert.rejects(readAll(createDenoFsOps({ ...swapped, recheckRealPath: true })), isChanged);
  await swapBack();
  // Under bubblewrap the re-check is off: outside paths are not in the view at all.
  assert.equal(await readAll(createDenoFsOps(swapped)), "secret\n");
  await swapBack();

  // The walk's path already runs through a swapped parent when it is opened.
  await swapToSymlink();
  const walked = createDenoFsOps({ recheckRealPath: true });
  assert.throws(() => walked.openWalkedFileSync!(inside), isChanged);
  const unchecked = createDenoFsOps().openWalkedFileSync!(inside);
  unchecked.close();
});
