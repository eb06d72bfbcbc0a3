import assert from "node:assert/strict";
import { serveToolHost } from "../../../src/sandbox/host/server.ts";
import type { HostConfig, MainToHost } from "../../../src/sandbox/host/protocol.ts";
import { SHUTDOWN_WORKER } from "./_shutdown_worker.ts";

const config = {
  workerUrl: SHUTDOWN_WORKER,
  permissions: "none",
  toolOptions: {},
} as unknown as HostConfig;

/** Runs the host on `messages` (then the end of stdin); what it wrote to stdout, one per line. */
async function serve(messages: MainToHost[], waitFor: string[]): Promise<string[]> {
  const out: string[] = [];
  const encoder = new TextEncoder();
  let seen: () => void = () => {};
  const outputs = new Promise<void>((resolve) => seen = resolve);
  const stdin = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const msg of messages) controller.enqueue(encoder.encode(JSON.stringify(msg) + "\n"));
      // The end of stdin only once the host answered what the test waits for.
      if (waitFor.length > 0) await outputs;
      controller.close();
    },
  });
  const stdout = new WritableStream<Uint8Array>({
    write(chunk) {
      out.push(...new TextDecoder().decode(chunk).split("\n").filter((l) => l !== ""));
      if (waitFor.every((w) => out.some((l) => l.includes(w)))) seen();
    },
  });
  const code = await serveToolHost({ stdin, stdout }, { net: {} as never });
  assert.equal(code, 0);
  return out;
}

Deno.test("a tool host sent no call ends at the end of stdin without a shutdown of its Worker", async () => {
  const out = await serve([{ type: "init", config }], []);
  assert.ok(!out.some((l) => l.includes("asked to shut down")), out.join("\n"));
});

Deno.test("a tool host that relayed a call shuts its Worker down at the end of stdin", async () => {
  const call: MainToHost = { type: "call", id: 1, name: "x", args: {}, toolCallId: "c1" };
  const out = await serve([{ type: "init", config }, call], ['"result"']);
  assert.ok(out.some((l) => l.includes("asked to shut down")), out.join("\n"));
});
