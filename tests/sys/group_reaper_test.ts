import assert from "node:assert/strict";
import { GROUP_REAPER_SCRIPT, startGroupReaper } from "../../src/sys/group_reaper.ts";

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

function sleeper(): Deno.ChildProcess {
  return new Deno.Command("sleep", {
    args: ["300"],
    detached: true,
    stdout: "null",
    stderr: "null",
  })
    .spawn();
}

/** Runs the reaper's script on `input` (its end is moat's death when it lacks "end"). */
async function runScript(input: string): Promise<void> {
  const child = new Deno.Command("bash", {
    args: ["-c", GROUP_REAPER_SCRIPT, "moat-group-reaper"],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  assert.equal((await child.status).code, 0);
}

Deno.test('the group reaper kills its groups when its input ends without "end" (moat died)', async () => {
  const a = sleeper();
  const b = sleeper();
  try {
    await runScript(`add ${a.pid}\nadd ${b.pid}\nadd not-a-pid\n`);
    assert.equal((await a.status).signal, "SIGKILL");
    assert.equal((await b.status).signal, "SIGKILL");
  } finally {
    for (const c of [a, b]) if (alive(c.pid)) c.kill("SIGKILL");
  }
});

Deno.test('the group reaper leaves its groups be after "end", and closes without killing', async () => {
  const a = sleeper();
  try {
    await runScript(`add ${a.pid}\nend\n`);
    const reaper = startGroupReaper();
    assert.ok(reaper !== undefined);
    reaper.add(a.pid);
    await reaper.close();
    assert.ok(alive(a.pid), "still running");
  } finally {
    a.kill("SIGKILL");
    await a.status;
  }
});
