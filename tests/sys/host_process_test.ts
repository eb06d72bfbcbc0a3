import assert from "node:assert/strict";
import { createDenoHostProcessOps } from "../../src/sys/host_process.ts";

Deno.test("the tool host's process starts with no environment but PATH (the API key included)", async () => {
  // bwrap's first process in the new pid namespace keeps this environment in /proc/1/environ.
  Deno.env.set("MOAT_TEST_SECRET_KEY", "sk-host-process-test");
  try {
    const child = createDenoHostProcessOps().spawn("/usr/bin/env", []);
    await child.stdin.close();
    const [out] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.status,
    ]);
    assert.doesNotMatch(out, /sk-host-process-test/);
    // PATH, and what the closing-descriptors bash trampoline sets itself.
    const names = out.trim().split("\n").map((line) => line.split("=")[0]);
    assert.deepEqual(
      names.filter((n) => !["PATH", "PWD", "SHLVL", "_"].includes(n ?? "")),
      [],
      out,
    );
  } finally {
    Deno.env.delete("MOAT_TEST_SECRET_KEY");
  }
});
