import assert from "node:assert/strict";
import { startProcessHost, startWorkerHost } from "../../../src/sandbox/host/connection.ts";
import type { HostConfig, HostToMain, MainToHost } from "../../../src/sandbox/host/protocol.ts";
import { SHUTDOWN_WORKER } from "./_shutdown_worker.ts";
import type { HostExit, HostProcess, HostProcessOps } from "../../../src/sandbox/ops.ts";

/** bwrap's first status line (`--json-status-fd`), in the three writes bwrap makes of it. */
const STATUS = ['{ "child-pid": 42', ', "pid-namespace": 4026532123', " }\n"];

/** How the fake host process behaves. */
interface FakeOptions {
  /** It says so on stdout once started, as the real host does after its init. */
  ready?: boolean;
  /** Still booting: the end of its stdin does not end it (only a kill does). */
  booting?: boolean;
  /** bwrap's status on stderr: when the process starts, or only once its stdin ended (late). */
  status?: "start" | "late";
  /** What the host writes to stderr first (before any status). */
  stderr?: string;
}

/**
 * A host process that exits at the end of its stdin (a shutdown) unless still booting, when
 * killed, or when its sandbox's first process (pid 42) is killed; it logs each.
 */
function fakeProcesses(log: string[], options: FakeOptions = {}): HostProcessOps {
  return {
    spawn(): HostProcess {
      let exit: (status: HostExit) => void = () => {};
      const status = new Promise<HostExit>((resolve) => exit = resolve);
      let out: ReadableStreamDefaultController<Uint8Array> | undefined;
      let err: ReadableStreamDefaultController<Uint8Array> | undefined;
      let ended = false;
      const encoder = new TextEncoder();
      const end = (s: HostExit) => {
        if (ended) return;
        ended = true;
        out?.close();
        err?.close();
        exit(s);
      };
      const writeStatus = () => {
        for (const part of STATUS) err?.enqueue(encoder.encode(part));
      };
      return {
        pid: 1,
        stdin: new WritableStream({
          write(chunk) {
            log.push(`got ${JSON.parse(new TextDecoder().decode(chunk)).type}`);
          },
          close() {
            log.push("stdin closed");
            if (options.status === "late") writeStatus();
            if (!options.booting) end({ code: 0, signal: null });
          },
        }),
        stdout: new ReadableStream({
          start: (c) => {
            out = c;
            if (options.ready) c.enqueue(encoder.encode('{"type":"ready"}\n'));
          },
        }),
        stderr: new ReadableStream({
          start: (c) => {
            err = c;
            if (options.stderr !== undefined) c.enqueue(encoder.encode(options.stderr));
            if (options.status === "start") writeStatus();
          },
        }),
        status,
        kill() {
          log.push("killed");
          end({ code: 137, signal: "SIGKILL" });
        },
        killChild(pid) {
          log.push(`killed child ${pid}`);
          if (pid !== 42) return;
          // bwrap exits once its child is gone, with 128 + the signal, and says so when the
          // sandboxed program had started.
          if (options.ready) err?.enqueue(encoder.encode('{ "exit-code": 137 }\n'));
          end({ code: 137, signal: null });
        },
      };
    },
  };
}

const config = {
  workerUrl: "file:///w.ts",
  permissions: {},
  toolOptions: {},
} as unknown as HostConfig;

/** Resolves once `host` said it is ready. */
function readyOf(host: ReturnType<typeof startProcessHost>): Promise<void> {
  return new Promise((resolve) => {
    host.onMessage = (msg) => {
      if (msg.type === "ready") resolve();
    };
  });
}

Deno.test("a tool host sent no call, whose bwrap named no process, is not killed at close: it ends at the end of its stdin", async () => {
  // Without the sandbox's first process a kill could land while bwrap still sets up the view,
  // whose child may then make mount points after this run let its placeholders go.
  for (const ready of [true, false]) {
    const log: string[] = [];
    const host = startProcessHost(["bwrap"], config, { processes: fakeProcesses(log, { ready }) });
    if (ready) await readyOf(host);
    await host.close();
    assert.deepEqual(log, ["got init", "stdin closed"]);
  }
});

Deno.test("a tool host sent no call is ended at close with its sandbox's first process (bwrap named it), not waited for until it boots", async () => {
  for (const ready of [false, true]) {
    const log: string[] = [];
    const processes = fakeProcesses(log, { ready, booting: true, status: "start" });
    const host = startProcessHost(["bwrap"], config, { processes, statusFd: 3 });
    if (ready) await readyOf(host);
    await host.close();
    // Not the outer bwrap after a grace period: the first process of the sandbox, at once.
    assert.deepEqual(log, ["got init", "stdin closed", "killed child 42"]);
    // bwrap's status lines are not the host's error text.
    assert.equal(await host.closed, "exit code 137");
  }
});

Deno.test("a tool host sent no call whose bwrap names its first process only after the close began is ended once named", async () => {
  const log: string[] = [];
  const processes = fakeProcesses(log, { booting: true, status: "late" });
  const host = startProcessHost(["bwrap"], config, { processes, statusFd: 3 });
  await host.close();
  assert.deepEqual(log, ["got init", "stdin closed", "killed child 42"]);
});

Deno.test("a status line after the host's own stderr names no process to kill, and stays in its error text", async () => {
  const log: string[] = [];
  const stderr = "host: boom\n";
  const processes = fakeProcesses(log, { stderr, status: "start" });
  const host = startProcessHost(["bwrap"], config, { processes, statusFd: 3 });
  await host.close();
  assert.deepEqual(log, ["got init", "stdin closed"]);
  assert.match(await host.closed, /^exit code 0: host: boom \/ \{ "child-pid": 42/);
});

Deno.test("a tool host that ran a call or a query is shut down through its stdin, not killed", async () => {
  const messages: MainToHost[] = [
    { type: "call", id: 1, name: "ls", args: {}, toolCallId: "c1" },
    { type: "query", id: 2, descriptors: [] },
  ];
  for (const msg of messages) {
    const log: string[] = [];
    const processes = fakeProcesses(log, { status: "start" });
    const host = startProcessHost(["bwrap"], config, { processes, statusFd: 3 });
    host.send(msg);
    await host.close();
    assert.deepEqual(log, ["got init", `got ${msg.type}`, "stdin closed"]);
  }
});

Deno.test("a tool Worker sent no call is terminated at close; one that ran a call is shut down first", async () => {
  for (const called of [false, true]) {
    const seen: HostToMain[] = [];
    const host = startWorkerHost({ ...config, workerUrl: SHUTDOWN_WORKER });
    host.onMessage = (msg) => void seen.push(msg);
    if (called) {
      const result = new Promise<void>((resolve) => {
        host.onMessage = (msg) => {
          seen.push(msg);
          if (msg.type === "result") resolve();
        };
      });
      host.send({ type: "call", id: 1, name: "ls", args: {}, toolCallId: "c1" });
      await result;
    }
    await host.close();
    assert.equal(await host.closed, "closed");
    const askedToShutDown = seen.some((m) => m.type === "error" && m.message.includes("shut down"));
    assert.equal(askedToShutDown, called, JSON.stringify(seen));
  }
});
