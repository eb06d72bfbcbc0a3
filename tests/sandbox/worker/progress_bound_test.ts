import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import type { AnyTool } from "../../../src/agent/tool.ts";
import {
  type HostToMain,
  type MainToHost,
  MAX_UPDATE_TEXT_CHARS,
} from "../../../src/sandbox/host/protocol.ts";
import { serveToolWorker, type WorkerPort } from "../../../src/sandbox/worker/_worker_core.ts";
import { createProcessRegistry } from "../../../src/sys/process.ts";

/** A tool that reports one huge update, then one whose details are not JSON. */
function floodTool(): AnyTool {
  return {
    name: "flood",
    description: "reports too much",
    parameters: Type.Object({}),
    kind: "execute",
    execute: (_args, _signal, ctx) => {
      ctx.onUpdate({ text: "x".repeat(1_000_000) + "END", details: { lines: 7 } });
      ctx.onUpdate({ text: "odd", details: { big: 1n } });
      ctx.onUpdate({ text: "huge details", details: { blob: "y".repeat(100_000) } });
      return Promise.resolve({ output: "done" });
    },
  };
}

Deno.test("the tool worker sends each progress update bounded: the end of its text, small JSON details", async () => {
  const posted: HostToMain[] = [];
  let result!: () => void;
  const finished = new Promise<void>((resolve) => result = resolve);
  const port: WorkerPort = {
    onmessage: null,
    postMessage: (m) => {
      posted.push(m as HostToMain);
      if ((m as HostToMain).type === "result") result();
    },
  };
  serveToolWorker(port, { createTools: () => [floodTool()], registry: createProcessRegistry() });
  const send = (msg: MainToHost) => port.onmessage?.({ data: msg } as MessageEvent);
  send({ type: "init", config: { toolOptions: {} } } as unknown as MainToHost);
  send({ type: "call", id: 1, name: "flood", args: {}, toolCallId: "c1" });
  await finished;
  const updates = posted.flatMap((m) => m.type === "progress" ? [m.update] : []);
  assert.equal(updates.length, 3);
  assert.equal(updates[0]?.text.length, MAX_UPDATE_TEXT_CHARS);
  assert.ok(updates[0]?.text.endsWith("xEND"));
  assert.deepEqual(updates[0]?.details, { lines: 7 });
  assert.deepEqual(updates[1], { text: "odd" });
  assert.deepEqual(updates[2], { text: "huge details" });
  // What the host writes to the main process is one JSON line per message.
  for (const m of posted) JSON.stringify(m);
});
