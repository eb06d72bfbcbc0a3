import assert from "node:assert/strict";
import { createManualClock } from "../../support/manual_clock.ts";
import { createBashTool } from "../../../src/tools/bash/mod.ts";
import { createJobTool, type JobDetails } from "../../../src/tools/bash/job_tool.ts";
import { JobTable } from "../../../src/tools/bash/jobs.ts";
import type { ToolOutput } from "../../../src/agent/tool.ts";
import { createDenoProcessOps, createProcessRegistry } from "../../../src/sys/process.ts";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.ts";
import { call, isAlive } from "../_helpers.ts";

const ENV = { PATH: "/usr/local/bin:/usr/bin:/bin" };

function setup(ws: TempWorkspace, maxJobs?: number) {
  const clock = createManualClock();
  const registry = createProcessRegistry();
  const base = { cwd: ws.dir, spillDir: ws.path(".spill"), env: ENV };
  const process = createDenoProcessOps();
  const jobs = new JobTable({
    ...base,
    process,
    processRegistry: registry,
    clock,
    ...(maxJobs === undefined ? {} : { maxJobs }),
  });
  const bash = createBashTool({ ...base, process, processRegistry: registry, jobs });
  const job = createJobTool(jobs);
  /** Starts a background job: the start's wait for first lines ends when the clock is ticked. */
  const start = async (command: string): Promise<ToolOutput> => {
    const before = clock.pending();
    const pending = call(bash, { command, background: true });
    for (let i = 0; i < 2000 && clock.pending() === before; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    clock.tick(1000);
    return await pending;
  };
  return {
    clock,
    registry,
    jobs,
    bash,
    job,
    start,
    async [Symbol.asyncDispose]() {
      await registry.killAll();
      await jobs.stopAll();
      await Promise.all(jobs.list().map((j) => j.ended));
    },
  };
}

function detailsOf(out: ToolOutput): JobDetails {
  return out.details as JobDetails;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("a dev server started in the background answers a later bash call, and stop kills it", async () => {
  await using ws = await createTempWorkspace();
  await using t = setup(ws);
  await Deno.writeTextFile(ws.path("index.html"), "hello from the job\n");
  const port = freePort();
  const started = await t.start(`python3 -u -m http.server ${port} --bind 127.0.0.1`);
  assert.equal(started.isError, undefined, started.output);
  const id = detailsOf(started).job?.id as string;
  assert.equal(id, "1");
  assert.match(started.output, /Started job "1" in the background/);
  // The start shows the first lines: the server's banner, unless it came later.
  if (!started.output.includes("Serving HTTP")) {
    const waited = await call(t.job, { action: "wait", id, pattern: "Serving HTTP" });
    assert.equal(detailsOf(waited).waited, "match", waited.output);
  }
  const fetched = await call(t.bash, { command: `curl -s http://127.0.0.1:${port}/index.html` });
  assert.equal(fetched.output, "hello from the job");
  // The server logged the request: a read returns only what is new.
  const read = await call(t.job, { action: "read", id });
  assert.match(read.output, /GET \/index.html/);
  assert.doesNotMatch(read.output, /Serving HTTP/);
  const pid = detailsOf(read).job?.pid as number;
  const stopped = await call(t.job, { action: "stop", id });
  assert.equal(detailsOf(stopped).job?.state, "stopped");
  assert.match(stopped.output, /Job "1" .* was stopped\./);
  assert.equal(isAlive(pid), false);
});

Deno.test("job wait returns when a new line matches, and times out on the injected clock", async () => {
  await using ws = await createTempWorkspace();
  await using t = setup(ws);
  const started = await t.start(
    "echo one; until [ -f go ]; do sleep 0.01; done; echo ready-42; exec sleep 30",
  );
  assert.match(started.output, /Started job "1" in the background/);
  // The first lines: in the start's result, or in the next read.
  const first = /^one\n/.test(started.output)
    ? started
    : await call(t.job, { action: "wait", id: "1", pattern: "^one$" });
  assert.match(first.output, /^one\n/);
  const timingOut = call(t.job, { action: "wait", id: "1", pattern: "never", timeout: 5 });
  for (let i = 0; i < 2000 && t.clock.pending() === 0; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  t.clock.tick(5000);
  const timedOut = await timingOut;
  assert.equal(detailsOf(timedOut).waited, "timeout");
  assert.match(timedOut.output, /Waited 5s: no new line matched so far/);
  const matching = call(t.job, { action: "wait", id: "1", pattern: "ready-\\d+" });
  await Deno.writeTextFile(ws.path("go"), "");
  const matched = await matching;
  assert.equal(detailsOf(matched).waited, "match");
  assert.match(matched.output, /^ready-42\n/);
  const invalid = await call(t.job, { action: "wait", id: "1", pattern: "(" });
  assert.equal(invalid.isError, true);
  assert.match(invalid.output, /^Invalid pattern "\(":/);
});

Deno.test("a wait for a line the start already showed matches at once; after a read it does not", async () => {
  await using ws = await createTempWorkspace();
  await using t = setup(ws);
  // The start returns (its clock ticked) only once the job's first line has come in.
  const pending = call(t.bash, {
    command: "echo Serving-on-8000; exec sleep 30",
    background: true,
  });
  for (let i = 0; i < 2000 && (t.jobs.get("1")?.info().outputLines ?? 0) < 1; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  for (let i = 0; i < 2000 && t.clock.pending() === 0; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  t.clock.tick(1000);
  const started = await pending;
  assert.match(started.output, /^Serving-on-8000\n/);
  const matched = await call(t.job, { action: "wait", id: "1", pattern: "^Serving" });
  assert.equal(detailsOf(matched).waited, "match");
  // Read now: the preview is gone, so a second wait for the same line waits for a new one.
  const timingOut = call(t.job, { action: "wait", id: "1", pattern: "^Serving", timeout: 2 });
  for (let i = 0; i < 2000 && t.clock.pending() === 0; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  t.clock.tick(2000);
  assert.equal(detailsOf(await timingOut).waited, "timeout");
});

Deno.test("at most maxJobs jobs run at once: the next start is refused until one stops", async () => {
  await using ws = await createTempWorkspace();
  await using t = setup(ws, 2);
  await t.start("exec sleep 30");
  await t.start("exec sleep 31");
  const refused = await call(t.bash, { command: "sleep 32", background: true });
  assert.equal(refused.isError, true);
  assert.equal(
    refused.output,
    'Job limit reached: 2 jobs are running ("1", "2"); stop one with the job tool (action ' +
      '"stop") before starting another',
  );
  await call(t.job, { action: "stop", id: "1" });
  const third = await t.start("exec sleep 33");
  assert.equal(detailsOf(third).job?.id, "3");
  const list = await call(t.job, { action: "list" });
  assert.deepEqual(detailsOf(list).jobs?.map((j) => j.state), ["stopped", "running", "running"]);
  const missing = await call(t.job, { action: "read", id: "9" });
  assert.match(missing.output, /^No job "9": the jobs are "1", "2", "3"/);
});

Deno.test("the host's process registry kills running jobs with everything they started", async () => {
  await using ws = await createTempWorkspace();
  await using t = setup(ws);
  const started = await t.start("sleep 30 & echo $!; wait");
  const first = /^\d+\n/.test(started.output)
    ? started
    : await call(t.job, { action: "wait", id: "1", pattern: "^\\d+$" });
  const child = Number(first.output.split("\n")[0]);
  assert.ok(isAlive(child));
  await t.registry.killAll();
  for (let i = 0; i < 400 && isAlive(child); i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(isAlive(child), false);
});

Deno.test("a job's result names its log file whenever it shows output, even while the file is still being opened", async () => {
  await using ws = await createTempWorkspace();
  const clock = createManualClock();
  const registry = createProcessRegistry();
  const real = createDenoProcessOps();
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => open = resolve);
  // The log file opens only when the test says so.
  const process = {
    ...real,
    createSpillFile: async (path: string) => {
      await opened;
      return await real.createSpillFile(path);
    },
  };
  const jobs = new JobTable({
    cwd: ws.dir,
    spillDir: ws.path(".spill"),
    env: ENV,
    process,
    processRegistry: registry,
    clock,
  });
  const job = createJobTool(jobs);
  try {
    const started = await jobs.start(
      "until [ -f go ]; do sleep 0.01; done; seq 1 3000; echo ready; exec sleep 30",
    );
    assert.ok(started.ok);
    const waiting = call(job, { action: "wait", id: "1", pattern: "^ready$" });
    await Deno.writeTextFile(ws.path("go"), "");
    for (let i = 0; i < 2000 && started.job.info().outputLines < 3001; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    open();
    const waited = await waiting;
    assert.equal(detailsOf(waited).waited, "match");
    assert.match(waited.output, /The job's output \(first 10 MiB\) is in .*job-1-\d+\.log/);
  } finally {
    open();
    await registry.killAll();
    await jobs.stopAll();
    await Promise.all(jobs.list().map((j) => j.ended));
  }
});

Deno.test("a job's output is capped: its log keeps the first 10 MiB, and a read only the end", async () => {
  await using ws = await createTempWorkspace();
  await using t = setup(ws);
  // 13 MB of 100-byte lines, then a marker, from a job that keeps running.
  await t.start(
    "until [ -f go ]; do sleep 0.01; done; yes \"$(printf '%099d' 0)\" | head -n 130000; " +
      "echo finished; exec sleep 30",
  );
  const waiting = call(t.job, { action: "wait", id: "1", pattern: "^finished$" });
  await Deno.writeTextFile(ws.path("go"), "");
  const waited = await waiting;
  assert.equal(detailsOf(waited).waited, "match");
  // What the model gets is the end of the output, not 12 MiB.
  assert.ok(waited.output.length < 64 * 1024, `${waited.output.length} characters`);
  assert.match(waited.output, /finished/);
  const log = t.jobs.get("1")?.info().logFile;
  assert.ok(log, "the job has a log file");
  assert.equal((await Deno.stat(log)).size, 10 * 1024 * 1024);
});
