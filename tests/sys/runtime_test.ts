import assert from "node:assert/strict";
import { join } from "node:path";
import { createDenoRuntimeOps, defaultDenoDir } from "../../src/sys/runtime.ts";

Deno.test("defaultDenoDir() finds Deno's cache as Deno does, without running deno info", () => {
  assert.equal(defaultDenoDir("linux", { DENO_DIR: "/d", HOME: "/h" }), "/d");
  assert.equal(defaultDenoDir("linux", { HOME: "/h" }), "/h/.cache/deno");
  assert.equal(defaultDenoDir("linux", { HOME: "/h", XDG_CACHE_HOME: "/x" }), "/x/deno");
  assert.equal(defaultDenoDir("darwin", { HOME: "/Users/a" }), "/Users/a/Library/Caches/deno");
  assert.equal(defaultDenoDir("windows", { LOCALAPPDATA: "C:/L" }), "C:/L/deno");
  assert.equal(defaultDenoDir("linux", {}), undefined);
});

Deno.test("RuntimeOps.cacheDir() resolves a relative DENO_DIR or XDG_CACHE_HOME against the current directory, as Deno does", () => {
  const runtime = createDenoRuntimeOps();
  assert.equal(runtime.cacheDir({ DENO_DIR: "/abs/d" }), "/abs/d");
  assert.equal(runtime.cacheDir({ DENO_DIR: "rel/d" }), join(Deno.cwd(), "rel/d"));
  assert.equal(
    runtime.cacheDir({ HOME: "/h", XDG_CACHE_HOME: "rel" }),
    join(Deno.cwd(), "rel/deno"),
  );
  assert.equal(runtime.cacheDir({}), undefined);
});

Deno.test("RuntimeOps.cacheDir() is the directory `deno info` reports, for this process's environment", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(out.success);
  const reported =
    (JSON.parse(new TextDecoder().decode(out.stdout)) as { denoDir: string }).denoDir;
  const found = createDenoRuntimeOps().cacheDir(Deno.env.toObject());
  assert.ok(found !== undefined);
  assert.equal(Deno.realPathSync(found), Deno.realPathSync(reported));
});
