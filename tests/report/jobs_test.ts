import assert from "node:assert/strict";
import type { AgentEvent } from "../../src/agent/mod.ts";
import { JobEvents, withJobEvents } from "../../src/report/jobs.ts";
import type { JobEvent } from "../../src/report/jobs.ts";
import type { Reporter } from "../../src/report/mod.ts";
import type { JobInfo } from "../../src/tools/mod.ts";

function info(id: string, state: JobInfo["state"], extra: Partial<JobInfo> = {}): JobInfo {
  return {
    id,
    command: `cmd ${id}`,
    pid: 100,
    state,
    exitCode: null,
    signal: null,
    outputBytes: 0,
    outputLines: 0,
    logFile: null,
    lastLines: "",
    ...extra,
  };
}

function toolEnd(
  toolCallId: string,
  name: string,
  details: unknown,
  isError = false,
): AgentEvent {
  return {
    type: "tool_end",
    toolCallId,
    name,
    args: {},
    durationMs: 1,
    result: { toolCallId, toolName: name, content: "", isError, details },
  };
}

Deno.test("JobEvents: a start, then one exit per job: exited, stopped by the model, at the run's end", () => {
  const jobs = new JobEvents();
  const started = [
    ...jobs.fromEvent(toolEnd("b1", "bash", { job: info("1", "running") })),
    ...jobs.fromEvent(toolEnd("b2", "bash", { job: info("2", "running") })),
    ...jobs.fromEvent(toolEnd("b3", "bash", { job: info("3", "running") })),
  ];
  assert.deepEqual(started.map((e) => [e.type, e.id, e.toolCallId]), [
    ["job_start", "1", "b1"],
    ["job_start", "2", "b2"],
    ["job_start", "3", "b3"],
  ]);
  // A read that sees job 1 still running tells nothing; a list that sees it ended does, once.
  assert.deepEqual(jobs.fromEvent(toolEnd("r", "job", { job: info("1", "running") })), []);
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const exited = info("1", "exited", { exitCode: 3, lastLines: lines });
  const listed = jobs.fromEvent(toolEnd("l", "job", { jobs: [exited, info("2", "running")] }));
  assert.deepEqual(listed, [{
    type: "job_exit",
    id: "1",
    command: "cmd 1",
    toolCallId: "b1",
    end: "exited",
    exitCode: 3,
    signal: null,
    lastLines: Array.from({ length: 20 }, (_, i) => `line ${i + 11}`).join("\n"),
  }]);
  assert.deepEqual(jobs.fromEvent(toolEnd("l2", "job", { jobs: [exited] })), []);
  const stop = jobs.fromEvent(
    toolEnd("s", "job", { job: info("2", "stopped", { signal: "SIGKILL" }), stopped: true }),
  );
  assert.deepEqual(stop.map((e) => e.type === "job_exit" && [e.id, e.end, e.signal]), [
    ["2", "stopped", "SIGKILL"],
  ]);
  const end = jobs.atRunEnd([
    { job: info("1", "exited"), stopped: false },
    { job: info("2", "stopped"), stopped: false },
    { job: info("3", "stopped", { signal: "SIGKILL" }), stopped: true },
  ]);
  assert.deepEqual(end.map((e) => e.type === "job_exit" && [e.id, e.end, e.toolCallId]), [
    ["3", "run_end", "b3"],
  ]);
});

Deno.test("JobEvents: a job that ended during its start exits at once; failed calls tell nothing", () => {
  const jobs = new JobEvents();
  assert.deepEqual(jobs.fromEvent(toolEnd("b0", "bash", { job: info("9", "running") }, true)), []);
  assert.deepEqual(jobs.fromEvent(toolEnd("b", "bash", { exitCode: 0 })), []);
  const events = jobs.fromEvent(
    toolEnd("b1", "bash", { job: info("1", "exited", { exitCode: 0, lastLines: "one\n" }) }),
  );
  assert.deepEqual(events.map((e) => e.type), ["job_start", "job_exit"]);
  assert.equal(events[1]?.type === "job_exit" && events[1].lastLines, "one");
  // A job ended by an earlier stop and seen only at the end was the model's stop.
  jobs.fromEvent(toolEnd("b2", "bash", { job: info("2", "running") }));
  assert.deepEqual(
    jobs.atRunEnd([{ job: info("2", "stopped") }]).map((e) => e.type === "job_exit" && e.end),
    ["stopped"],
  );
});

Deno.test("withJobEvents() passes every event on and tells the job events to reporter.job", () => {
  const seen: string[] = [];
  const base: Reporter = {
    start() {},
    event: (e) => void seen.push(e.type),
    warning() {},
    job: (e: JobEvent) => void seen.push(`${e.type} ${e.id}`),
    end() {},
    dispose() {},
  };
  const reporter = withJobEvents(base, new JobEvents());
  reporter.event({ type: "turn_start", turn: 1 });
  reporter.event(toolEnd("b1", "bash", { job: info("1", "running") }));
  assert.deepEqual(seen, ["turn_start", "tool_end", "job_start 1"]);
  const { job: _job, ...plain } = base;
  assert.equal(withJobEvents(plain, new JobEvents()), plain, "no job sink: unchanged");
});
