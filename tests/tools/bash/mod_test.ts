import assert from "node:assert/strict";
import { createManualClock } from "../../support/manual_clock.ts";
import { join } from "node:path";
import type { ToolUpdate } from "../../../src/agent/tool.ts";
import { type BashDetails, createBashTool } from "../../../src/tools/bash/mod.ts";
import { createReadTool } from "../../../src/tools/read.ts";
import type { ProcessOps } from "../../../src/tools/ops.ts";
import { createDenoFsOps } from "../../../src/sys/fs.ts";
import { createDenoProcessOps, createProcessRegistry } from "../../../src/sys/process.ts";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.ts";
import { call, isAlive, survivors } from "../_helpers.ts";

const ENV = { PATH: "/usr/local/bin:/usr/bin:/bin" };

async function readPids(path: string): Promise<number[]> {
  const text = await Deno.readTextFile(path);
  return text.trim().split("\n").filter((l) => l !== "").map(Number);
}

function setup(ws: TempWorkspace, extra: Partial<Parameters<typeof createBashTool>[0]> = {}) {
  return createBashTool({
    cwd: ws.dir,
    spillDir: ws.path(".spill"),
    env: ENV,
    process: createDenoProcessOps(),
    ...extra,
  });
}

async function run(
  tool: ReturnType<typeof createBashTool>,
  args: { command: string; timeout?: number },
  options: { signal?: AbortSignal; onUpdate?: (u: ToolUpdate) => void } = {},
) {
  const start = performance.now();
  const result = await tool.execute(args, options.signal ?? new AbortController().signal, {
    toolCallId: "call-1",
    onUpdate: options.onUpdate ?? (() => {}),
  });
  return { ...result, ms: performance.now() - start, details: result.details as BashDetails };
}

Deno.test("bash timeout kills the whole process group and returns promptly", async () => {
  await using ws = await createTempWorkspace();
  const tool = setup(ws);
  const r = await run(tool, {
    command: "sleep 300 & echo $! >> pids; sleep 300 & echo $! >> pids; echo started; wait",
    timeout: 1,
  });
  // Far below the sleeps it killed (300 s), with room for a loaded machine.
  assert.ok(r.ms < 4000, `took ${r.ms} ms`);
  assert.equal(r.isError, true);
  assert.match(r.output, /started\n\ncommand timed out after 1s and was killed$/);
  assert.equal(r.details.timedOut, true);
  assert.equal(r.details.exitCode, null);
  const pids = await readPids(ws.path("pids"));
  assert.equal(pids.length, 2);
  assert.deepEqual(await survivors(pids), []);
});

Deno.test("bash returns soon after exit while a background process holds the pipe", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), { command: "echo hi; sleep 5 & echo $! > pid; exit 0" });
  // Below the 5 s the background sleep holds the pipe for.
  assert.ok(r.ms < 4500, `took ${r.ms} ms`);
  assert.equal(r.output, "hi");
  assert.equal(r.isError, undefined);
  assert.equal(r.details.exitCode, 0);
  assert.deepEqual(await survivors(await readPids(ws.path("pid"))), []);
});

Deno.test("bash stops at most 2 s after exit when a background process keeps printing", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), {
    command: "(while true; do echo tick; sleep 0.02; done) & echo $! > pid; exit 0",
  });
  // The printer never stops by itself: any bound shows the 2 s drain limit, with room for load.
  assert.ok(r.ms < 8000, `took ${r.ms} ms`);
  assert.ok(r.output.includes("tick"));
  assert.deepEqual(await survivors(await readPids(ws.path("pid"))), []);
});

Deno.test("bash keeps output written shortly after the shell exits", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), { command: "echo first; (sleep 0.05; echo late) & exit 0" });
  assert.equal(r.output, "first\nlate");
});

Deno.test("bash returns a bounded tail of huge output with the spill file path", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), { command: "seq 1 5000000" });
  assert.equal(r.isError, undefined);
  assert.equal(r.details.exitCode, 0);
  const [body, note] = r.output.split("\n\n");
  const lines = (body ?? "").split("\n");
  assert.equal(lines.length, 2000);
  assert.equal(lines[0], "4998001");
  assert.equal(lines.at(-1), "5000000");
  const spill = r.details.stdoutFile;
  assert.ok(spill !== undefined && spill.startsWith(ws.path(".spill") + "/"));
  assert.equal(
    note,
    `[stdout: showing the last 2000 of 5000000 lines, 37.1 MB. The first 10 MiB of stdout ` +
      `are saved in ${spill} (the rest was not kept).]`,
  );
  assert.equal((await Deno.stat(spill)).size, 10 * 1024 * 1024);
  // The model pages the spill file with read.
  const read = createReadTool({ cwd: ws.dir, fs: createDenoFsOps() });
  const page = await call(read, { path: spill, limit: 3 });
  assert.ok(!page.isError, page.output);
  assert.ok(page.output.startsWith("1\n2\n3\n"), page.output);
  // Memory: two tail rings plus at most one unspilled head, whatever the command printed.
  assert.ok(
    r.details.retainedPeakBytes <= 2 * 64 * 1024 + 51_200,
    `${r.details.retainedPeakBytes}`,
  );
  assert.ok(r.details.stdoutBytes > 30_000_000);
});

Deno.test("bash spill file names are unique per call", async () => {
  await using ws = await createTempWorkspace();
  const tool = setup(ws);
  const a = await run(tool, { command: "seq 1 3000" });
  const b = await run(tool, { command: "seq 1 3000" });
  assert.ok(a.details.stdoutFile && b.details.stdoutFile);
  assert.notEqual(a.details.stdoutFile, b.details.stdoutFile);
  assert.equal(
    await Deno.readTextFile(a.details.stdoutFile),
    await Deno.readTextFile(b.details.stdoutFile),
  );
  assert.ok(a.output.includes(`Full stdout saved in ${a.details.stdoutFile}.`), a.output);
});

Deno.test("bash spills nothing when all output fits", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), { command: "seq 1 10" });
  assert.equal(r.details.stdoutFile, undefined);
  assert.equal(r.details.truncated, false);
  await assert.rejects(() => Deno.stat(ws.path(".spill")), Deno.errors.NotFound);
});

Deno.test("bash abort kills the process group and reports partial output", async () => {
  await using ws = await createTempWorkspace();
  const controller = new AbortController();
  const pending = run(setup(ws), {
    command: "echo partial; sleep 300 & echo $! > pid; sleep 300 & echo $! >> pid; wait",
  }, { signal: controller.signal });
  for (let i = 0; i < 200; i++) {
    const text = await Deno.readTextFile(ws.path("pid")).catch(() => "");
    if (text.split("\n").length >= 3) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  controller.abort();
  const r = await pending;
  assert.equal(r.isError, true);
  assert.equal(r.output, "partial\n\ncommand aborted");
  assert.equal(r.details.aborted, true);
  assert.deepEqual(await survivors(await readPids(ws.path("pid"))), []);
});

Deno.test("bash with an already aborted signal starts nothing", async () => {
  await using ws = await createTempWorkspace();
  const ops: ProcessOps = {
    spawn: () => {
      throw new Error("spawn must not be called");
    },
    createSpillFile: () => Promise.reject(new Error("not expected")),
  };
  const controller = new AbortController();
  controller.abort();
  const r = await run(setup(ws, { process: ops }), { command: "echo x" }, {
    signal: controller.signal,
  });
  assert.equal(r.output, "command aborted");
  assert.equal(r.isError, true);
});

Deno.test("bash non-zero exit is not an error and ends the output with the code", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), { command: "echo out; exit 7" });
  assert.equal(r.isError, undefined);
  assert.equal(r.output, "out\n\nCommand exited with code 7");
  assert.equal(r.details.exitCode, 7);
});

Deno.test("bash gives the model progress bars and colours as a terminal shows them", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), {
    command: "printf '\\033[1;31merror\\033[0m: bad\\r\\n'; " +
      "for i in $(seq 1 5000); do printf '\\r%d%%' $i; done; printf '\\rdone \\n'; " +
      "printf 'abcdef\\rXY\\n' >&2",
  });
  assert.equal(r.output, "error: bad\ndone \n--- stderr ---\nXYcdef");
  assert.ok(r.details.stdoutBytes > 20_000, "the spill and counts keep the raw bytes");
});

Deno.test("bash shows binary output to the model as a note, not as noise", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), {
    command: "head -c 3000 /dev/urandom; printf 'plain text\\n' >&2",
  });
  assert.match(
    r.output,
    /^\[binary output not shown \(2\.9 KB\); inspect it with "xxd \| head" or "od -c \| head", or redirect it to a file\]\n--- stderr ---\nplain text$/,
  );
  assert.equal(r.details.stdoutBytes, 3000);
});

Deno.test("bash shows stderr separately from stdout", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), {
    command: "echo to-out; echo to-err >&2; echo more-out",
  });
  assert.equal(r.output, "to-out\nmore-out\n--- stderr ---\nto-err");
  assert.equal(r.details.stdoutBytes, 16);
  assert.equal(r.details.stderrBytes, 7);
});

Deno.test("bash shares the budget between long stdout and stderr and spills both", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), { command: "seq 1 3000; seq 1 2500 >&2" });
  const [body] = r.output.split("\n\n");
  const [out, err] = (body ?? "").split("\n--- stderr ---\n");
  assert.equal((out ?? "").split("\n").length + (err ?? "").split("\n").length, 2000);
  assert.ok(r.details.stdoutFile && r.details.stderrFile);
  assert.equal(
    await Deno.readTextFile(r.details.stderrFile),
    Array.from({ length: 2500 }, (_, i) => `${i + 1}\n`).join(""),
  );
  assert.match(r.output, /\[stderr: showing the last 1000 of 2500 lines/);
});

Deno.test("bash reports death by signal", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws), { command: "kill -TERM $$" });
  assert.equal(r.output, "Command was killed by signal SIGTERM");
  assert.equal(r.details.signal, "SIGTERM");
  assert.equal(r.details.exitCode, null);
});

Deno.test("bash reports a process that ended without an exit status", async () => {
  await using ws = await createTempWorkspace();
  const ops: ProcessOps = {
    spawn: () => ({
      ok: true,
      child: {
        pid: 999_999_999,
        stdout: ReadableStream.from([new TextEncoder().encode("some\n")]),
        stderr: ReadableStream.from([]),
        status: Promise.resolve({ code: null, signal: null }),
        killGroup: () => Promise.resolve(),
      },
    }),
    createSpillFile: () => Promise.reject(new Error("not expected")),
  };
  const r = await run(setup(ws, { process: ops }), { command: "x" });
  assert.equal(r.output, "some\n\nCommand ended without an exit status");
  assert.equal(r.isError, true);
});

Deno.test("bash environment is exactly the allow-list it was given", async () => {
  await using ws = await createTempWorkspace();
  assert.ok(Deno.env.get("HOME") !== undefined, "test precondition: HOME is set");
  const r = await run(setup(ws, { env: { ...ENV, MOAT_GIVEN: "yes" } }), {
    command: 'echo "given=$MOAT_GIVEN home=${HOME-unset}"; env | cut -d= -f1 | sort | tr "\\n" " "',
  });
  assert.equal(r.output, "given=yes home=unset\nMOAT_GIVEN PATH PWD SHLVL _ ");
});

Deno.test("bash runs with a default PATH when the environment has none", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws, { env: {} }), { command: 'echo "$PATH"; ls -d .' });
  assert.equal(r.output, "/usr/bin:/bin\n.");
});

Deno.test("bash runs in the configured cwd", async () => {
  await using ws = await createTempWorkspace({ "marker.txt": "m" });
  const r = await run(setup(ws), { command: "pwd; cat marker.txt" });
  assert.equal(r.output, `${ws.dir}\nm`);
});

Deno.test("bash reports a working directory that does not exist", async () => {
  await using ws = await createTempWorkspace();
  const tool = createBashTool({
    cwd: ws.path("missing"),
    spillDir: ws.path(".spill"),
    env: ENV,
    process: createDenoProcessOps(),
  });
  const r = await run(tool, { command: "true" });
  assert.equal(r.isError, true);
  assert.match(r.output, /^Could not start bash in ".*missing": .*missing/);
});

Deno.test("bash caps the model's timeout at the configured maximum", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws, { maxTimeoutSec: 1 }), { command: "sleep 30", timeout: 900 });
  assert.ok(r.ms < 4000, `took ${r.ms} ms`);
  assert.equal(
    r.output,
    "[Timeout 900s is over the maximum; used 1s.]\ncommand timed out after 1s and was killed",
  );
  assert.equal(r.details.timeoutSec, 1);
});

Deno.test("bash default timeout comes from the options", async () => {
  await using ws = await createTempWorkspace();
  const r = await run(setup(ws, { timeoutSec: 0.3 }), { command: "sleep 30" });
  assert.equal(r.output, "command timed out after 0.3s and was killed");
});

Deno.test("bash sends the current tail to onUpdate at most every 100 ms (on the injected clock)", async () => {
  await using ws = await createTempWorkspace();
  const clock = createManualClock();
  const updates: { at: number; text: string }[] = [];
  // The command goes on only when the test says so (a file appears): no race with real time.
  const pending = run(
    setup(ws, { updateClock: clock }),
    {
      command: "echo line1; until [ -f go1 ]; do sleep 0.01; done; echo line2; " +
        "until [ -f go2 ]; do sleep 0.01; done; echo line3",
    },
    { onUpdate: (u) => updates.push({ at: clock.now(), text: u.text }) },
  );
  const until = async (what: string, check: () => boolean) => {
    for (let i = 0; i < 3000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(check(), `timed out waiting for ${what}`);
  };
  // The first output is sent at once (nothing was sent before).
  await until("a timer for line1", () => clock.pending() > 0);
  clock.tick(0);
  assert.deepEqual(updates.map((u) => u.text), ["line1"]);
  await Deno.writeTextFile(ws.path("go1"), "");
  await until("a timer for line2", () => clock.pending() > 0);
  clock.tick(99);
  assert.equal(updates.length, 1, "not before 100 ms have passed");
  clock.tick(1);
  assert.deepEqual(updates.map((u) => [u.at, u.text]), [[0, "line1"], [100, "line1\nline2"]]);
  await Deno.writeTextFile(ws.path("go2"), "");
  const r = await pending;
  assert.ok(r.output.endsWith("line3"));
  for (let i = 1; i < updates.length; i++) {
    assert.ok((updates[i]?.at ?? 0) - (updates[i - 1]?.at ?? 0) >= 100);
  }
});

Deno.test("bash live updates hold only the last lines and the totals, however much is printed", async () => {
  await using ws = await createTempWorkspace();
  const clock = createManualClock();
  const updates: ToolUpdate[] = [];
  const lines = 200_000;
  const pending = run(
    setup(ws, { updateClock: clock }),
    { command: `seq 1 ${lines}; echo oops >&2; until [ -f go ]; do sleep 0.01; done` },
    { onUpdate: (u) => updates.push(u) },
  );
  const seqBytes = Array.from({ length: lines }, (_, i) => String(i + 1).length + 1)
    .reduce((a, b) => a + b, 0);
  const all = { totalLines: lines + 1, totalBytes: seqBytes + "oops\n".length };
  const sawAll = () => {
    const d = updates.at(-1)?.details as { totalLines: number } | undefined;
    return d?.totalLines === all.totalLines;
  };
  // Time moves only here: each pending update timer is fired, until one has seen all the output.
  for (let i = 0; i < 20_000 && !sawAll(); i++) {
    if (clock.pending() > 0) clock.tick(100);
    else await new Promise((r) => setTimeout(r, 2));
  }
  assert.ok(sawAll(), "an update saw all the output");
  for (const u of updates) {
    assert.ok(new TextEncoder().encode(u.text).length <= 4096 + 20, "at most 4 KiB per update");
    assert.ok(u.text.split("\n").length <= 21, "at most 20 lines (and the stderr header)");
  }
  const last = updates.at(-1) as ToolUpdate;
  assert.deepEqual(last.details, all);
  assert.match(last.text, /\n199999\n200000\n--- stderr ---\noops$/);
  await Deno.writeTextFile(ws.path("go"), "");
  const r = await pending;
  // The model's result is what it was: the tail under the usual budget, the rest spilled.
  assert.match(r.output, /\n200000\n/);
  assert.ok(r.output.split("\n").length > 1000, "the result keeps its own, larger tail");
});

Deno.test("bash registers its process group while running", async () => {
  await using ws = await createTempWorkspace();
  const registry = createProcessRegistry();
  const seen: number[][] = [];
  const r = await run(setup(ws, { processRegistry: registry }), {
    command: "echo $$; sleep 0.3; echo done",
  }, { onUpdate: () => seen.push(registry.pids()) });
  const pid = Number(r.output.split("\n")[0]);
  assert.ok(seen.some((pids) => pids.includes(pid)), JSON.stringify(seen));
  assert.deepEqual(registry.pids(), []);
});

Deno.test("bash registry killAll() ends a running call's processes", async () => {
  await using ws = await createTempWorkspace();
  const registry = createProcessRegistry();
  const pending = run(setup(ws, { processRegistry: registry }), {
    command: "sleep 300 & echo $! > pid; wait",
  });
  for (let i = 0; i < 200; i++) {
    const text = await Deno.readTextFile(ws.path("pid")).catch(() => "");
    if (text.endsWith("\n")) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  await registry.killAll();
  const r = await pending;
  assert.equal(r.output, "Command was killed by signal SIGKILL");
  assert.deepEqual(await survivors(await readPids(ws.path("pid"))), []);
});

Deno.test("bash runs under a command prefix", async () => {
  await using ws = await createTempWorkspace();
  const tool = setup(ws, { commandPrefix: ["/usr/bin/env", "MOAT_PREFIXED=1"] });
  const r = await run(tool, { command: 'echo "prefixed=$MOAT_PREFIXED"' });
  assert.equal(r.output, "prefixed=1");
});

/** Whether bubblewrap can create a nested pid namespace here (CI installs it). */
const bwrapUsable = await new Deno.Command("bwrap", {
  args: ["--dev-bind", "/", "/", "--unshare-pid", "--die-with-parent", "true"],
  stdout: "null",
  stderr: "null",
}).output().then((o) => o.success, () => false);

Deno.test({
  name: "bash under a nested bwrap leaves no setsid process behind",
  ignore: !bwrapUsable,
}, async () => {
  await using ws = await createTempWorkspace();
  const marker = `${300 + Math.floor(Math.random() * 1000) / 1000}`;
  const tool = setup(ws, {
    commandPrefix: ["bwrap", "--dev-bind", "/", "/", "--unshare-pid", "--die-with-parent", "--"],
  });
  const r = await run(tool, { command: `setsid sleep ${marker} & echo started` });
  assert.equal(r.output, "started");
  const alive: number[] = [];
  for (let i = 0; i < 25; i++) {
    alive.length = 0;
    for await (const entry of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const cmd = await Deno.readTextFile(join("/proc", entry.name, "cmdline")).catch(() => "");
      if (cmd.includes(`sleep\0${marker}`) && isAlive(Number(entry.name))) {
        alive.push(Number(entry.name));
      }
    }
    if (alive.length === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(alive, []);
});

Deno.test("bash declares itself an execute tool running bash", () => {
  const tool = createBashTool({ cwd: "/", spillDir: "/tmp/x", process: createDenoProcessOps() });
  assert.equal(tool.kind, "execute");
  assert.equal(tool.concurrencySafe, false);
  assert.deepEqual(tool.locations?.({ command: "rm -rf /" }), [{ access: "run", program: "bash" }]);
});

Deno.test("bash output filling its whole budget fits its own result cap (no second cut)", async () => {
  await using ws = await createTempWorkspace();
  const tool = setup(ws);
  // 2000 lines of 25 bytes = 50,000 bytes of body, plus the notes.
  const r = await run(tool, { command: "for i in $(seq 1 2100); do printf '%024d\\n' $i; done" });
  assert.equal(r.output.split("\n\n")[0]?.split("\n").length, 2000);
  assert.ok(r.output.length > 50_000, `${r.output.length} chars`);
  assert.ok(
    tool.maxResultChars !== undefined && r.output.length <= tool.maxResultChars,
    `output ${r.output.length} chars, cap ${tool.maxResultChars}`,
  );
});

Deno.test("bash saves every byte of both streams exactly while reading into reused buffers", async () => {
  await using ws = await createTempWorkspace();
  // ~2 MB on stdout and ~1 MB on stderr, interleaved: many reads, every buffer reused.
  const r = await run(setup(ws), { command: "seq 1 300000; seq 1 150000 >&2" });
  const expected = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}\n`).join("");
  assert.ok(r.details.stdoutFile !== undefined && r.details.stderrFile !== undefined);
  assert.equal(await Deno.readTextFile(r.details.stdoutFile), expected(300_000));
  assert.equal(await Deno.readTextFile(r.details.stderrFile), expected(150_000));
  assert.equal(r.details.stdoutBytes, new TextEncoder().encode(expected(300_000)).length);
  assert.ok(r.output.includes("of 300000 lines"), r.output.slice(-400));
  assert.ok(r.output.includes("of 150000 lines"), r.output.slice(-400));
});

Deno.test("bash's prunedHint points at the saved output, or says to run the command again", async () => {
  await using ws = await createTempWorkspace();
  const tool = setup(ws);
  const result = (details: BashDetails) => ({
    toolCallId: "c1",
    toolName: "bash",
    content: "…",
    isError: false,
    details,
  });
  const base: BashDetails = {
    exitCode: 2,
    timeoutSec: 120,
    stdoutBytes: 10,
    stderrBytes: 0,
    truncated: false,
    retainedPeakBytes: 10,
  };
  assert.equal(
    tool.prunedHint?.({ command: "make" }, result(base)),
    "It exited with code 2. Run the command again if you need its output (mind its side effects).",
  );
  assert.equal(
    tool.prunedHint?.({ command: "seq 1 9" }, result({ ...base, exitCode: 0, stdoutFile: "/s/o" })),
    'It exited with code 0. Its full output was saved in "/s/o": page it with the read tool ' +
      "(offset/limit).",
  );
});
