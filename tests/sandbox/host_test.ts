import assert from "node:assert/strict";
import { probeBwrap } from "../../src/sandbox/bwrap/mod.ts";
import { defaultGrants } from "../support/grants.ts";
import { RemoteToolError } from "../../src/sandbox/host/client.ts";
import { createSandbox, SandboxUnavailableError } from "../../src/sandbox/mod.ts";
import { readLines } from "../../src/sandbox/host/protocol.ts";
import { UsageError } from "../support/grants.ts";
import { createDenoCommandOps } from "../../src/sys/command.ts";
import { createDenoHostProcessOps } from "../../src/sys/host_process.ts";
import { createDenoPathOps } from "../../src/sys/paths.ts";
import { createDenoSandboxSys } from "../../src/sys/sandbox.ts";
import type { ToolUpdate } from "../../src/agent/tool.ts";
import { fakeTools } from "./_fake_tools.ts";
import {
  BWRAP,
  callTool,
  createLayout,
  HOST_SCRIPT,
  MODES,
  openSandbox,
  textOf,
} from "./_helpers.ts";

const FAKE_WORKER = new URL("./_fake_worker.ts", import.meta.url).href;

for (const mode of MODES) {
  Deno.test(`[${mode}] the tool host relays results, progress, aborts and tool errors`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      createTools: fakeTools,
      workerUrl: FAKE_WORKER,
    });
    try {
      assert.equal(sb.mode, mode);
      const echo = sb.tools.find((t) => t.name === "echo")!;
      const updates: ToolUpdate[] = [];
      const out = await echo.execute({ text: "hi" }, new AbortController().signal, {
        toolCallId: "c1",
        onUpdate: (u) => updates.push(u),
      });
      assert.deepEqual(out, { output: "echo: hi", details: { n: 1 } });
      assert.deepEqual(updates, [{ text: "working on hi" }]);

      const controller = new AbortController();
      const waiting = callTool(sb, "wait", {}, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      assert.equal(textOf(await waiting).trim(), "wait aborted");

      await assert.rejects(callTool(sb, "throws", {}), (e) => {
        assert.ok(e instanceof RemoteToolError);
        assert.equal(e.message, "bad tool");
        return true;
      });
    } finally {
      await sb.close();
    }
  });

  Deno.test(`[${mode}] a dead tool host fails pending calls and is replaced without a new probe`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    let probes = 0;
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      createTools: fakeTools,
      workerUrl: FAKE_WORKER,
      probe:
        () => (probes++,
          probeBwrap({ paths: createDenoPathOps(), commands: createDenoCommandOps() })),
    });
    try {
      const pending = callTool(sb, "wait", {});
      const crashed = await callTool(sb, "crash", {});
      assert.ok("output" in crashed && crashed.output.isError);
      assert.match(textOf(crashed), /tool host stopped .*boom.*before "crash" finished/s);
      const other = await pending;
      assert.ok("output" in other && other.output.isError, "the other pending call got an error");
      assert.match(textOf(await callTool(sb, "echo", { text: "again" })), /echo: again/);
      // bubblewrap is probed once per run (never with --sandbox=off), not per host start.
      assert.equal(probes, mode === "bwrap" ? 1 : 0);
    } finally {
      await sb.close();
    }
  });
}

Deno.test("--sandbox=require with bubblewrap unusable is a usage error naming the cause", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const error = await openSandbox(layout, "bwrap", defaultGrants(layout.ws), {
    probe: () => Promise.resolve({ usable: false, cause: "user namespaces are disabled" }),
  }).then(() => undefined, (e) => e);
  assert.ok(error instanceof SandboxUnavailableError);
  assert.ok(error instanceof UsageError, "the CLI maps UsageError to exit 2");
  assert.match(error.message, /--sandbox=require.*user namespaces are disabled/);
});

Deno.test("--sandbox=auto without bubblewrap falls back to the Worker with a warning", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const sb = await createSandbox({
    cwd: layout.ws,
    grants: defaultGrants(layout.ws),
    spillDir: layout.spill,
    env: { PATH: "/usr/bin:/bin" },
    secretEnvNames: [],
    hostScript: HOST_SCRIPT,
    probe: () => Promise.resolve({ usable: false, cause: "bwrap is not installed" }),
    sys: createDenoSandboxSys(),
  });
  try {
    assert.equal(sb.mode, "worker");
    assert.equal(sb.warnings.length, 1);
    assert.match(sb.warnings[0]!, /bwrap is not installed.*bash needs --allow-run/);
    // bash is not OS-sandboxed here, so it needs an explicit --allow-run.
    const outcome = await callTool(sb, "bash", { command: "echo hi" });
    assert.deepEqual(outcome, {
      blocked: 'run access to "bash" is not granted (add --allow-run=bash)',
    });
    assert.match(textOf(await callTool(sb, "read", { path: "a.txt" })), /hello/);
  } finally {
    await sb.close();
  }
});

/** Runs tests/sandbox/_signal_entry.ts as its own process group leader. */
function spawnEntry(mode: "bwrap" | "worker", layout: { ws: string; spill: string }, step: string) {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--unstable-worker-options",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      new URL("./_signal_entry.ts", import.meta.url).pathname,
      mode,
      layout.ws,
      layout.spill,
      step,
    ],
    // Its own process group, like moat started from a shell on a terminal.
    detached: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Reads JSON lines from `stream`, handing each to `onLine`; resolves at the end. */
async function readJsonLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (value: Record<string, string>) => void,
): Promise<void> {
  for await (const line of readLines(stream)) onLine(JSON.parse(line));
}

/** The process group and session of `pid` (fields 5 and 6 of /proc/PID/stat). */
function groupOf(pid: number | "self"): { pgrp: number; session: number } {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pgrp: Number(fields[2]), session: Number(fields[3]) };
}

Deno.test({
  name: "[bwrap] the tool host runs in its own session, away from moat's process group",
  ignore: !BWRAP,
  fn: async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const pids: number[] = [];
    const processes = createDenoHostProcessOps();
    const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws), {
      createTools: fakeTools,
      workerUrl: FAKE_WORKER,
      sys: {
        processes: {
          spawn(program, args, options) {
            const child = processes.spawn(program, args, options);
            pids.push(child.pid);
            return child;
          },
        },
      },
    });
    try {
      assert.match(textOf(await callTool(sb, "echo", { text: "up" })), /echo: up/);
      assert.equal(pids.length, 1);
      const host = groupOf(pids[0]!);
      const self = groupOf("self");
      assert.notEqual(host.pgrp, self.pgrp);
      assert.notEqual(host.session, self.session);
      assert.equal(host.pgrp, pids[0], "the host leads its own process group");
    } finally {
      await sb.close();
    }
    assert.throws(() => groupOf(pids[0]!), "close() ends the host");
  },
});

Deno.test({
  name: "[bwrap] SIGINT to moat's process group aborts the call cleanly; the host survives it",
  ignore: !BWRAP,
  fn: async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const child = spawnEntry("bwrap", layout, "sigint");
    const lines: Record<string, string>[] = [];
    let ready: () => void = () => {};
    const isReady = new Promise<void>((resolve) => ready = resolve);
    const stdout = readJsonLines(child.stdout, (line) => {
      lines.push(line);
      if ("ready" in line) ready();
    });
    const stderr = new Response(child.stderr).text();
    // A generous bound, so a regression fails instead of hanging the suite.
    const guard = setTimeout(() => Deno.kill(-child.pid, "SIGKILL"), 30_000);
    try {
      await Promise.race([isReady, child.status]);
      assert.deepEqual(lines, [{ ready: "echo: up" }]);
      // What a Ctrl-C on the terminal does: SIGINT to every process in the foreground group.
      Deno.kill(-child.pid, "SIGINT");
      const status = await child.status;
      await stdout;
      assert.equal(status.code, 0, await stderr);
      assert.deepEqual(lines[1], { result: "wait aborted" }, await stderr);
    } finally {
      clearTimeout(guard);
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch { /* already gone */ }
      await child.status;
      await stdout.catch(() => {});
      await stderr;
    }
  },
});

for (const mode of MODES) {
  Deno.test(`[${mode}] a crashed tool worker becomes an error result without printing a stack`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const child = spawnEntry(mode, layout, "crash");
    const [status, stdout, stderr] = await Promise.all([
      child.status,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    assert.equal(status.code, 0, stderr);
    assert.doesNotMatch(stderr, /Uncaught|boom/);
    const result = JSON.parse(stdout).result as string;
    assert.match(result, /tool host stopped \(.*the tool worker crashed: boom\) before "crash"/s);
    assert.doesNotMatch(result, /Uncaught|\bat /, "no stack in the result either");
  });
}
