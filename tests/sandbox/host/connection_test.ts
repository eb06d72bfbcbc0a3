import assert from "node:assert/strict";
import { startProcessHost } from "../../../src/sandbox/host/connection.ts";
import type { HostConfig } from "../../../src/sandbox/host/protocol.ts";
import type { HostExit, HostProcess, HostProcessOps } from "../../../src/sandbox/ops.ts";

/** A host process that exits at the end of its stdin (a shutdown) or when killed; it logs both. */
function fakeProcesses(log: string[], options: { killReaches?: boolean } = {}): HostProcessOps {
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
        stdout: new ReadableStream({ start: (c) => void (out = c) }),
        stderr: new ReadableStream({ start: (c) => void (err = c) }),
        status,
        kill() {
          log.push("killed");
          // A launcher in front of the host takes the signal; the host itself runs on.
          if (options.killReaches !== false) end({ code: 137, signal: "SIGKILL" });
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

Deno.test("a tool host that was sent no call is killed at close, without waiting for it to shut down", async () => {
  const log: string[] = [];
  const host = startProcessHost(["bwrap"], config, { processes: fakeProcesses(log) });
  await host.close();
  // Killed first: close() did not shut its stdin and wait for it to exit.
  assert.equal(log[0], "killed", log.join(", "));
});

Deno.test("an uncalled tool host the kill does not reach still ends: its stdin is closed too", async () => {
  const log: string[] = [];
  const processes = fakeProcesses(log, { killReaches: false });
  const host = startProcessHost(["setsid", "bwrap"], config, { processes });
  await host.close();
  assert.deepEqual(log.slice(-2), ["killed", "stdin closed"]);
});

Deno.test("a tool host that ran a call is shut down through its stdin, not killed", async () => {
  const log: string[] = [];
  const host = startProcessHost(["bwrap"], config, { processes: fakeProcesses(log) });
  host.send({ type: "call", id: 1, name: "ls", args: {}, toolCallId: "c1" });
  await host.close();
  assert.deepEqual(log, ["got init", "got call", "stdin closed"]);
});
