import assert from "node:assert/strict";
import { createDenoMcpProcessOps } from "../../src/sys/mcp.ts";
import { procStatFields } from "../../src/sys/_proc_stat.ts";

/** Pids whose command line is exactly `words` (zombies left out). */
function processesRunning(words: string[]): number[] {
  const found: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const argv = Deno.readTextFileSync(`/proc/${e.name}/cmdline`).split("\0").slice(0, -1);
      const state = procStatFields(Number(e.name))?.[0];
      if (state !== "Z" && argv.join(" ") === words.join(" ")) found.push(Number(e.name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

Deno.test("kill() also kills a child that leads a session of its own (bubblewrap's sandbox does)", async () => {
  const needle = `300.${Math.floor(Math.random() * 1e6)}`;
  const ops = createDenoMcpProcessOps();
  const spawned = ops.spawn({
    command: "bash",
    args: ["-c", `setsid sleep ${needle} & wait`],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  });
  assert.ok(spawned.ok);
  const { child } = spawned;
  try {
    // Wait (on its state, not a clock) until the sleep runs in a session of its own.
    let sleeper: number | undefined;
    while (sleeper === undefined) {
      const [pid] = processesRunning(["sleep", needle]);
      const fields = pid === undefined ? undefined : procStatFields(pid);
      // Field 6 (the session) is [3]: its own pid once setsid ran.
      if (pid !== undefined && fields?.[3] === String(pid)) sleeper = pid;
      else await new Promise((r) => setTimeout(r, 5));
    }
    await child.kill();
    // A killed process can take a moment to be gone: wait for it by its state (bounded: one the
    // kill missed would run for 300 s).
    for (let i = 0; i < 2000 && processesRunning(["sleep", needle]).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.deepEqual(processesRunning(["sleep", needle]), [], `sleeper ${sleeper} survived`);
  } finally {
    for (const pid of processesRunning(["sleep", needle])) Deno.kill(pid, "SIGKILL");
    await child.stdin.close().catch(() => {});
    await child.stdout.cancel();
    await child.stderr.cancel();
  }
});
