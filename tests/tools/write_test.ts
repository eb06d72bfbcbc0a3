import assert from "node:assert/strict";
import { createWriteTool } from "../../src/tools/write.ts";
import { createDenoFsOps } from "../../src/sys/fs.ts";
import { MemoryFs } from "../support/memory_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { call } from "./_helpers.ts";

Deno.test("write() creates parents and reports bytes and creation", async () => {
  const fs = new MemoryFs({ "/ws/.keep": "" });
  const tool = createWriteTool({ cwd: "/ws", fs });
  const r = await call(tool, { path: "a/b/c.txt", content: "héllo" });
  assert.equal(r.output, "Wrote 6 bytes to a/b/c.txt (created a new file).");
  assert.equal(fs.text("/ws/a/b/c.txt"), "héllo");
  const again = await call(tool, { path: "a/b/c.txt", content: "bye" });
  assert.equal(again.output, "Wrote 3 bytes to a/b/c.txt (overwrote the existing file).");
});

Deno.test("write() refuses a directory target and a path that is not granted", async () => {
  const fs = new MemoryFs({ "/ws/dir/x": "" });
  const tool = createWriteTool({ cwd: "/ws", fs });
  const dir = await call(tool, { path: "dir", content: "x" });
  assert.equal(dir.output, 'Cannot write "dir": it is a directory; give the path of a file');
  fs.faults.push({ op: "writeFile", path: "/ws/n.txt", code: "not_granted" });
  const denied = await call(tool, { path: "n.txt", content: "x" });
  assert.equal(denied.isError, true);
  assert.match(denied.output, /access is not granted for this run/);
});

Deno.test("write() locations() give the real path of a new file under a symlinked dir", async () => {
  const fs = new MemoryFs({ "/elsewhere/.keep": "" });
  fs.addSymlink("/ws/out", "/elsewhere");
  const tool = createWriteTool({ cwd: "/ws", fs });
  assert.deepEqual(await tool.locations?.({ path: "out/new/f.txt", content: "" }), [
    { access: "write", path: "/elsewhere/new/f.txt" },
  ]);
});

Deno.test("write() on a real directory is atomic, keeps the mode and leaves no temp files", async () => {
  await using ws = await createTempWorkspace({ "run.sh": "#!/bin/sh\n" });
  await Deno.chmod(ws.path("run.sh"), 0o755);
  const tool = createWriteTool({ cwd: ws.dir, fs: createDenoFsOps() });
  const r = await call(tool, { path: "run.sh", content: "#!/bin/sh\necho hi\n" });
  assert.equal(r.output, "Wrote 18 bytes to run.sh (overwrote the existing file).");
  assert.equal((await Deno.stat(ws.path("run.sh"))).mode! & 0o777, 0o755);
  const created = await call(tool, { path: "deep/er/new.txt", content: "n" });
  assert.match(created.output, /created a new file/);
  assert.equal(await Deno.readTextFile(ws.path("deep/er/new.txt")), "n");
  const names = [];
  for await (const e of Deno.readDir(ws.dir)) names.push(e.name);
  assert.deepEqual(names.sort(), ["deep", "run.sh"]);
});
