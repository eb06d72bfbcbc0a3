import assert from "node:assert/strict";
import { GROUP_REAPER_SCRIPT, startGroupReaper, startTimeOf } from "../../src/sys/group_reaper.ts";

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

/**
 * Runs the reaper's script with a list of `groups` on `input` (its end is moat's death when it
 * lacks "end"); the list is gone afterwards.
 */
async function runScript(groups: string, input: string): Promise<void> {
  const list = await Deno.makeTempFile();
  await Deno.writeTextFile(list, groups);
  const child = new Deno.Command("bash", {
    args: ["-c", GROUP_REAPER_SCRIPT, "moat-group-reaper", list],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  assert.equal((await child.status).code, 0);
  assert.equal(await Deno.stat(list).then(() => true, () => false), false, "list removed");
}

const entry = (pid: number, start = startTimeOf(pid)) => `${pid} ${start}\n`;

Deno.test('the group reaper kills its groups when its input ends without "end" (moat died)', async () => {
  const a = sleeper();
  const b = sleeper();
  // Listed with another start time: its pid is another process's now, left be.
  const reused = sleeper();
  try {
    await runScript(`${entry(a.pid)}${entry(b.pid)}not-a-pid 1\n${entry(reused.pid, "1")}`, "");
    assert.equal((await a.status).signal, "SIGKILL");
    assert.equal((await b.status).signal, "SIGKILL");
    assert.ok(alive(reused.pid), "a reused pid is left be");
  } finally {
    for (const c of [a, b, reused]) if (alive(c.pid)) c.kill("SIGKILL");
    await reused.status;
  }
});

Deno.test('the group reaper leaves its groups be after "end", and closes without killing', async () => {
  const a = sleeper();
  try {
    await runScript(entry(a.pid), "end\n");
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

Deno.test("a group given to the reaper is killed even when moat dies right after (nothing queued is lost)", async () => {
  const a = sleeper();
  try {
    const moat = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./_reaper_exit_entry.ts", import.meta.url).pathname, `${a.pid}`],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(moat.code, 0, new TextDecoder().decode(moat.stderr));
    // Bounded: a group the reaper never heard of lives on.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      a.status.then((s) => s.signal),
      new Promise<string>((resolve) => timer = setTimeout(() => resolve("still running"), 10_000)),
    ]);
    clearTimeout(timer);
    assert.equal(ended, "SIGKILL");
  } finally {
    if (alive(a.pid)) a.kill("SIGKILL");
  }
});
