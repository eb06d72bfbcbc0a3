import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import { prepareToolCall } from "../../src/agent/pipeline.ts";
import type { AnyTool } from "../../src/agent/tool.ts";
import type { ToolCallBlock } from "../../src/model/types.ts";

function echoTool(): AnyTool {
  return {
    name: "echo",
    label: "echo",
    description: "Echoes a path.",
    parameters: Type.Object({ path: Type.String({ description: "A path." }) }),
    kind: "read",
    execute: (args: { path: string }) => Promise.resolve({ output: args.path }),
  } as unknown as AnyTool;
}

function call(args: unknown): ToolCallBlock {
  return { type: "toolCall", id: "c1", name: "echo", arguments: args } as ToolCallBlock;
}

Deno.test("a policy rewrite runs with the rewritten arguments, checked again by the pipeline", async () => {
  const tool = echoTool();
  const seen: unknown[] = [];
  const prepared = await prepareToolCall(call({ path: "a" }), {
    tools: new Map([["echo", tool]]),
    signal: new AbortController().signal,
    maxResultChars: 1000,
    onToolCall: (info) => {
      assert.deepEqual(info.recheck?.({ path: 1 }).ok, false);
      const again = info.recheck?.({ path: "b" });
      seen.push(again);
      return { block: false, args: { path: "b" } };
    },
  });
  assert.equal(prepared.kind, "ready");
  if (prepared.kind === "ready") assert.deepEqual(prepared.args, { path: "b" });
  assert.deepEqual(seen, [{ ok: true, args: { path: "b" } }]);
});

Deno.test("a rewrite the tool's schema refuses is not executed", async () => {
  const prepared = await prepareToolCall(call({ path: "a" }), {
    tools: new Map([["echo", echoTool()]]),
    signal: new AbortController().signal,
    maxResultChars: 1000,
    onToolCall: () => ({ block: false, args: { path: ["x"] } }),
  });
  assert.equal(prepared.kind, "done");
  if (prepared.kind === "done") {
    assert.equal(prepared.record.executed, false);
    assert.match(String(prepared.record.result.content), /invalid arguments for tool "echo"/);
  }
});
