import assert from "node:assert/strict";
import { defaultGrants } from "../../src/policy/grants.ts";
import type { Protection } from "../../src/policy/protected.ts";
import type { HostConnection } from "../../src/sandbox/host/connection.ts";
import type { MainToHost } from "../../src/sandbox/host/protocol.ts";
import { type HostAccess, type HostCall, ToolHosts } from "../../src/sandbox/hosts.ts";

const GRANTS = defaultGrants("/w", {
  paths: {
    realPath: (path) => ({ ok: true, path }),
    stat: () => undefined,
    lstat: () => undefined,
  },
});

const PROTECTION: Protection = {
  workspace: "/w",
  paths: [],
  anchors: [],
  named: [],
  flags: { allowAll: false, write: ["/w"] },
};

/** Hosts that answer each call with their number and what they were started with. */
function fakeHosts() {
  const started: HostAccess[] = [];
  const closed: number[] = [];
  const start = (access: HostAccess): HostConnection => {
    started.push(access);
    const n = started.length;
    let gone: (reason: string) => void = () => {};
    const connection: HostConnection = {
      onMessage: () => {},
      send(msg: MainToHost) {
        if (msg.type !== "call") return;
        const reads = access.grants.read === true ? "all" : access.grants.read.join(",");
        const runs = access.grants.run === true ? "all" : access.grants.run.join(",");
        const output = `host ${n} (${msg.name}): read ${reads}; run ${runs}`;
        // A background bash call starts the job the run numbered.
        const jobId = (msg.args as Record<string, unknown> | undefined)?.["__job_id"];
        const details = msg.name === "bash" && typeof jobId === "string"
          ? { job: { id: jobId, pid: 1000 + Number(jobId) } }
          : msg.name === "job"
          ? { stopped: true }
          : undefined;
        queueMicrotask(() =>
          connection.onMessage({
            type: "result",
            id: msg.id,
            output: details === undefined ? { output } : { output, details },
          })
        );
      },
      closed: new Promise<string>((resolve) => gone = resolve),
      close() {
        closed.push(n);
        gone("closed");
        return Promise.resolve();
      },
    };
    return connection;
  };
  return { start, started, closed };
}

let ids = 0;
function call(): HostCall {
  return { toolCallId: `c${++ids}`, signal: new AbortController().signal, onUpdate: () => {} };
}

async function run(hosts: ToolHosts, name: string, at: HostCall = call()): Promise<string> {
  return (await hosts.execute(name, {}, at)).output;
}

Deno.test("ToolHosts runs calls in one host until widen(); the next call gets a new host", async () => {
  const fake = fakeHosts();
  const hosts = new ToolHosts({ grants: GRANTS, protection: PROTECTION }, fake.start);
  hosts.warmUp();
  assert.equal(fake.started.length, 1, "warmUp() starts the first host");
  assert.equal(await run(hosts, "ls"), "host 1 (ls): read /w; run ");
  assert.equal(await run(hosts, "read"), "host 1 (read): read /w; run ");
  const more: Protection = { ...PROTECTION, anchors: ["/w/.git"] };
  hosts.widen({ ...GRANTS, read: ["/w", "/data"] }, more);
  assert.deepEqual(hosts.grants.read, ["/w", "/data"]);
  assert.equal(hosts.protection, more);
  assert.equal(await run(hosts, "ls"), "host 2 (ls): read /w,/data; run ");
  assert.deepEqual(fake.closed, [1], "the replaced host stops once idle");
  assert.equal(fake.started[1]?.protection, more);
  hosts.restart();
  assert.equal(await run(hosts, "ls"), "host 3 (ls): read /w,/data; run ");
  await hosts.close();
  await hosts.close();
  assert.deepEqual(fake.closed, [1, 2, 3]);
});

Deno.test("ToolHosts runs a call approved once alone in a widened host, closed after it", async () => {
  const fake = fakeHosts();
  const hosts = new ToolHosts({ grants: GRANTS, protection: PROTECTION }, fake.start);
  const once = call();
  hosts.allowOnce(once.toolCallId, { access: "write", path: "/etc/app.conf" });
  assert.equal(await run(hosts, "read"), "host 1 (read): read /w; run ", "another call");
  assert.equal(await run(hosts, "write", once), "host 2 (write): read /w,/etc/app.conf; run ");
  assert.deepEqual(fake.closed, [2]);
  assert.equal(await run(hosts, "write", once), "host 1 (write): read /w; run ", "only once");
  assert.deepEqual(hosts.grants.read, ["/w"], "the run's grants are unchanged");
  await hosts.close();
});

Deno.test("ToolHosts gives a program allowed for the next bash call to that call only", async () => {
  const fake = fakeHosts();
  const hosts = new ToolHosts({ grants: GRANTS, protection: PROTECTION }, fake.start);
  hosts.allowForNextBash({ access: "run", program: "git" });
  assert.equal(await run(hosts, "ls"), "host 1 (ls): read /w; run ", "not another tool");
  assert.equal(await run(hosts, "bash"), "host 2 (bash): read /w; run git");
  assert.equal(await run(hosts, "bash"), "host 1 (bash): read /w; run ");
  await hosts.close();
  assert.deepEqual(fake.closed, [2, 1]);
});

Deno.test("ToolHosts keeps a host that started a background job, and routes the job's calls to it", async () => {
  const fake = fakeHosts();
  const hosts = new ToolHosts({ grants: GRANTS, protection: PROTECTION }, fake.start);
  const once = call();
  hosts.allowOnce(once.toolCallId, { access: "run", program: "python3" });
  const started = await hosts.execute("bash", { command: "serve", background: true }, once);
  assert.deepEqual(started.details, { job: { id: "1", pid: 1001 } });
  assert.deepEqual(fake.closed, [], "the once-approved host lives on for its job");
  const read = await hosts.execute("job", { action: "read", id: "1" }, call());
  assert.equal(read.output, "host 1 (job): read /w; run python3");
  hosts.widen({ ...GRANTS, read: ["/w", "/data"] });
  const second = await hosts.execute("bash", { command: "watch", background: true }, call());
  assert.deepEqual(second.details, { job: { id: "2", pid: 1002 } }, "ids count across hosts");
  hosts.widen({ ...GRANTS, read: ["/w", "/more"] });
  assert.equal(await run(hosts, "ls"), "host 3 (ls): read /w,/more; run ");
  assert.deepEqual(fake.closed, [], "a replaced host with a job is not closed");
  assert.equal(
    (await hosts.execute("job", { action: "stop", id: "2" }, call())).output,
    "host 2 (job): read /w,/data; run ",
  );
  assert.equal((await hosts.stopJobs()).length, 2);
  await hosts.close();
  assert.deepEqual(fake.closed.sort(), [1, 2, 3]);
});

Deno.test("ToolHosts lists the jobs of the hosts holding some, and starts no host when there are none", async () => {
  const fake = fakeHosts();
  const hosts = new ToolHosts({ grants: GRANTS, protection: PROTECTION }, fake.start);
  assert.equal(await hosts.listJobs(), "No background jobs.");
  assert.equal(fake.started.length, 0, "listing nothing started a host");
  await hosts.execute("bash", { command: "serve", background: true }, call());
  hosts.widen({ ...GRANTS, read: ["/w", "/data"] });
  await hosts.execute("bash", { command: "watch", background: true }, call());
  assert.equal(
    await hosts.listJobs(),
    "host 1 (job): read /w; run \nhost 2 (job): read /w,/data; run ",
  );
  await hosts.close();
});

Deno.test("ToolHosts tells a reaper (started with the first job) each job's pid, and closes it last", async () => {
  const fake = fakeHosts();
  const log: string[] = [];
  let starts = 0;
  const hosts = new ToolHosts({ grants: GRANTS, protection: PROTECTION }, fake.start, {
    startReaper: () => {
      starts++;
      return {
        add: (pid) => void log.push(`add ${pid}`),
        close: () => {
          log.push(`close after ${fake.closed.length} hosts`);
          return Promise.resolve();
        },
      };
    },
  });
  await run(hosts, "ls");
  assert.equal(starts, 0, "no job: no reaper");
  await hosts.execute("bash", { command: "serve", background: true }, call());
  await hosts.execute("bash", { command: "watch", background: true }, call());
  await hosts.close();
  assert.equal(starts, 1);
  assert.ok(fake.closed.length > 0);
  assert.deepEqual(log, ["add 1001", "add 1002", `close after ${fake.closed.length} hosts`]);
});
