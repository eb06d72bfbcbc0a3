import assert from "node:assert/strict";
import { join } from "node:path";
import { createDenoRuntimeOps, defaultDenoDir } from "../../src/sys/runtime.ts";
import { createTempWorkspace } from "../support/workspace.ts";

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

Deno.test("RuntimeOps.configFile() finds the --config this Deno runs the main module with", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using dir = await createTempWorkspace({
    "probe.ts": `import { createDenoRuntimeOps } from ${
      JSON.stringify(new URL("../../src/sys/runtime.ts", import.meta.url).href)
    };\nconsole.log(createDenoRuntimeOps().configFile() ?? "none");\n`,
    "cfg/deno.json": "{}\n",
  });
  const probe = async (args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      // Deno lets only --allow-all read /proc/self (moat runs with it).
      args: ["run", "--allow-all", "--no-lock", ...args],
      cwd: dir.dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).trim();
  };
  assert.equal(await probe(["--config", "cfg/deno.json", "probe.ts"]), dir.path("cfg/deno.json"));
  assert.equal(
    await probe(["--config=cfg/deno.json", "probe.ts", "--config", "x"]),
    dir.path("cfg/deno.json"),
  );
  assert.equal(await probe(["--no-config", "probe.ts", "--config", "cfg/deno.json"]), "none");
});
