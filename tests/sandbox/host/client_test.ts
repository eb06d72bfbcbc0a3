import assert from "node:assert/strict";
import { ToolHostClient } from "../../../src/sandbox/host/client.ts";
import type { HostConnection } from "../../../src/sandbox/host/connection.ts";
import type { HostToMain, MainToHost } from "../../../src/sandbox/host/protocol.ts";

/** A host that answers every call to "ls" and never answers "grep" (stuck in a computation). */
function stuckHost(log: string[]): HostConnection {
  let close: (reason: string) => void = () => {};
  const closed = new Promise<string>((resolve) => close = resolve);
  const connection: HostConnection = {
    onMessage: (_msg: HostToMain) => {},
    send(msg: MainToHost) {
      log.push(msg.type === "call" ? `call ${msg.name}` : msg.type);
      if (msg.type === "call" && msg.name === "ls") {
        queueMicrotask(() =>
          connection.onMessage({ type: "result", id: msg.id, output: { output: "listed" } })
        );
      }
    },
    closed,
    close() {
      log.push("closed");
      close("closed");
      return closed.then(() => {});
    },
  };
  return connection;
}

const noUpdate = () => {};

Deno.test("ToolHostClient restarts a host whose call does not stop after an abort, and later calls run", async () => {
  const log: string[] = [];
  let started = 0;
  const client = new ToolHostClient(() => {
    started++;
    return stuckHost(log);
  }, { abandonAfterMs: 20 });
  const controller = new AbortController();
  const stuck = client.execute("grep", {}, {
    toolCallId: "c1",
    signal: controller.signal,
    onUpdate: noUpdate,
  });
  controller.abort();
  const result = await stuck;
  assert.equal(result.isError, true);
  assert.match(result.output, /"grep" did not stop within 0\.02 s of being aborted/);
  const next = await client.execute("ls", {}, {
    toolCallId: "c2",
    signal: new AbortController().signal,
    onUpdate: noUpdate,
  });
  assert.equal(next.output, "listed");
  assert.equal(started, 2, "a new host ran the next call");
  assert.deepEqual(log, ["call grep", "abort", "closed", "call ls"]);
  await client.close();
});

Deno.test("ToolHostClient stops a call past its tool's deadline with a hint about the pattern", async () => {
  const log: string[] = [];
  const client = new ToolHostClient(() => stuckHost(log), { deadlinesMs: { grep: 20 } });
  const result = await client.execute("grep", {}, {
    toolCallId: "c1",
    signal: new AbortController().signal,
    onUpdate: noUpdate,
  });
  assert.equal(result.isError, true);
  assert.match(result.output, /"grep" did not finish within 0\.02 s/);
  assert.match(result.output, /simplify the pattern/);
  assert.ok(log.includes("closed"));
  await client.close();
});
