import assert from "node:assert/strict";
import { startProcessHost, startWorkerHost } from "../../../src/sandbox/host/connection.ts";
import type { HostConfig, HostToMain } from "../../../src/sandbox/host/protocol.ts";
import { SHUTDOWN_WORKER } from "./_shutdown_worker.ts";
import type { HostExit, HostProcess, HostProcessOps } from "../../../src/sandbox/ops.ts";

/**
 * A host process that exits at the end of its stdin (a shutdown) or when killed; it logs both.
 * `ready`: it says so on stdout once started, as the real host does after its init.
 */
function fakeProcesses(
  log: string[],
  options: { ready?: boolean } = {},
): HostProcessOps {
  return {
    spawn(): HostProcess {
      let exit: (status: HostExit) => void = () => {};
      const status = new Promise<HostExit>((resolve) => exit = resolve);
      let out: ReadableStreamDefaultController<Uint8Array> | undefined;
      let err: ReadableStreamDefaultController<Uint8Array> | undefined;
      const end = (s: HostExit) => {
        out?.close();
        err?.close();
        exit(s);
      };
      return {
        pid: 1,
        stdin: new WritableStream({
          write(chunk) {
            log.push(`got ${JSON.parse(new TextDecoder().decode(chunk)).type}`);
          },
          close() {
            log.push("stdin closed");
            end({ code: 0, signal: null });
          },
        }),
        stdout: new ReadableStream({
          start: (c) => {
            out = c;
            if (options.ready) c.enqueue(new TextEncoder().encode('{"type":"ready"}\n'));
          },
        }),
        stderr: new ReadableStream({ start: (c) => void (err = c) }),
        status,
        kill() {
          log.push("killed");
          end({ code: 137, signal: "SIGKILL" });
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

Deno.test("a tool host that was sent no call is not killed at close: it ends at the end of its stdin", async () => {
  // A kill can land while bwrap still sets up the view, whose child may then make mount points
  // after this run let its placeholders go: an idle host ends like any other, ready or starting.
  for (const ready of [true, false]) {
    const log: string[] = [];
    const host = startProcessHost(["bwrap"], config, { processes: fakeProcesses(log, { ready }) });
    if (ready) await readyOf(host);
    await host.close();
    assert.deepEqual(log, ["got init", "stdin closed"]);
  }
});

Deno.test("a tool host that ran a call is shut down through its stdin, not killed", async () => {
  const log: string[] = [];
  const host = startProcessHost(["bwrap"], config, { processes: fakeProcesses(log) });
  host.send({ type: "call", id: 1, name: "ls", args: {}, toolCallId: "c1" });
  await host.close();
  assert.deepEqual(log, ["got init", "got call", "stdin closed"]);
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
