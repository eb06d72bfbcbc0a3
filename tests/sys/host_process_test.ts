import assert from "node:assert/strict";
import { createDenoHostProcessOps } from "../../src/sys/host_process.ts";
import { readLines } from "../../src/sandbox/host/protocol.ts";

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

Deno.test("a status descriptor of the tool host's process is a copy of its stderr; no other is open", async () => {
  const script = "echo status >&3; echo error >&2; ls /proc/self/fd";
  const child = createDenoHostProcessOps().spawn("bash", ["-c", script], { statusFd: 3 });
  await child.stdin.close();
  const [out, err] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.status,
  ]);
  assert.equal(err, "status\nerror\n");
  // 0, 1, 2, the status descriptor, and the one ls reads the directory with.
  assert.deepEqual(out.trim().split("\n").map(Number).sort(), [0, 1, 2, 3, 4]);
});

Deno.test("killChild() kills a child of the tool host's process, nothing else", async () => {
  // A bystander: a process of this test's, not the host's child.
  const bystander = new Deno.Command("sleep", { args: ["300"] }).spawn();
  try {
    const child = createDenoHostProcessOps().spawn("bash", [
      "-c",
      "sleep 300 & echo $!; wait $!; echo ended=$?",
    ]);
    await child.stdin.close();
    const lines = readLines(child.stdout)[Symbol.asyncIterator]();
    const pid = Number((await lines.next()).value);
    child.killChild(bystander.pid);
    child.killChild(pid);
    // SIGKILL: 128 + 9.
    assert.equal((await lines.next()).value, "ended=137");
    assert.equal((await lines.next()).done, true);
    await Promise.all([new Response(child.stderr).text(), child.status]);
    // Its child is gone now: a kill of that number again does nothing.
    child.killChild(pid);
  } finally {
    bystander.kill("SIGKILL");
    assert.equal((await bystander.status).signal, "SIGKILL");
  }
});
