import assert from "node:assert/strict";
import { defaultDenoDir } from "../../src/sys/runtime.ts";

Deno.test("defaultDenoDir() finds Deno's cache as Deno does, without running deno info", () => {
  assert.equal(defaultDenoDir("linux", { DENO_DIR: "/d", HOME: "/h" }), "/d");
  assert.equal(defaultDenoDir("linux", { HOME: "/h" }), "/h/.cache/deno");
  assert.equal(defaultDenoDir("linux", { HOME: "/h", XDG_CACHE_HOME: "/x" }), "/x/deno");
  assert.equal(defaultDenoDir("darwin", { HOME: "/Users/a" }), "/Users/a/Library/Caches/deno");
  assert.equal(defaultDenoDir("windows", { LOCALAPPDATA: "C:/L" }), "C:/L/deno");
  assert.equal(defaultDenoDir("linux", {}), undefined);
});
