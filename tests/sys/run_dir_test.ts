import assert from "node:assert/strict";
import { join } from "node:path";
import { REAPER_SCRIPT } from "../../src/sys/run_dir.ts";

/** Runs the reaper's script on `dir` with an input that ends at once (moat closed it, or died). */
function runReaper(dir: string, env?: Record<string, string>): Promise<Deno.CommandOutput> {
  return new Deno.Command("bash", {
    args: ["-c", REAPER_SCRIPT, "moat-run-reaper", dir],
    ...(env === undefined ? {} : { clearEnv: true, env }),
    stdin: "null",
  }).output();
}

Deno.test("the run directory's reaper removes it and everything in it once its input ends", async () => {
  const root = await Deno.makeTempDir();
  try {
    const dir = join(root, "moat-run-x");
    await Deno.mkdir(join(dir, "spill"), { recursive: true });
    await Deno.writeTextFile(join(dir, "spill", "out.log"), "output\n");
    const out = await runReaper(dir);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.deepEqual([...Deno.readDirSync(root)], []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the run directory's reaper runs no program once moat has removed the directory", async () => {
  const root = await Deno.makeTempDir();
  try {
    // bash alone on PATH: a program it tried to run would be "command not found".
    const bin = join(root, "bin");
    await Deno.mkdir(bin);
    const bash = ["/usr/bin/bash", "/bin/bash"].find((p) => {
      try {
        return Deno.statSync(p).isFile;
      } catch {
        return false;
      }
    });
    assert.ok(bash !== undefined);
    await Deno.symlink(bash, join(bin, "bash"));
    const out = await runReaper(join(root, "moat-run-gone"), { PATH: bin });
    assert.equal(out.code, 0);
    assert.equal(new TextDecoder().decode(out.stderr), "");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
