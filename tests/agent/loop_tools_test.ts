/** The tools of a run may change while it goes on (an MCP server that becomes ready). */
import assert from "node:assert/strict";
import { createContextKeeper, createContextState, runAgentLoop } from "../../src/agent/mod.ts";
import type { AnyTool } from "../../src/agent/tool.ts";
import type { Message, ModelRequest, ToolResultMessage } from "../../src/model/types.ts";
import { systemClock } from "../../src/sys/clock.ts";
import { scripted, ScriptedModelClient } from "../support/scripted_model.ts";
import { controlledTool, memoryReadTool, user } from "./_helpers.ts";

const namesOf = (request: ModelRequest | undefined) => request?.tools.map((t) => t.name);

function resultOf(history: Message[], id: string) {
  for (const m of history) {
    if (m.role !== "toolResult") continue;
    const found = (m as ToolResultMessage).results.find((r) => r.toolCallId === id);
    if (found !== undefined) return found;
  }
  assert.fail(`no result for ${id}`);
}

Deno.test("runAgentLoop() asks a tools function before each request: a tool that arrives is offered from the next one", async () => {
  const late = controlledTool("late", { run: () => Promise.resolve({ output: "late ran" }) });
  const tools: AnyTool[] = [memoryReadTool({})];
  let asked = 0;
  const model = new ScriptedModelClient([
    () => {
      // It arrives while request 1 is on its way: request 1 did not offer it.
      tools.push(late);
      return scripted.toolCalls([{ id: "c1", name: "late", args: {} }]);
    },
    scripted.toolCalls([{ id: "c2", name: "late", args: {} }]),
    () => {
      // Gone after request 3 was sent (its server crashed): the call of that reply still runs.
      tools.splice(tools.indexOf(late), 1);
      return scripted.toolCalls([{ id: "c3", name: "late", args: {} }]);
    },
    scripted.text("done"),
  ]);
  const history: Message[] = [];
  const result = await runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: () => {
      asked++;
      return [...tools];
    },
    unknownToolReason: (name) => name === "late" ? "it arrived after this request" : undefined,
    system: "sys",
    clock: systemClock,
  });
  assert.equal(result.stopReason, "completed");
  assert.equal(asked, 5, "once at the start, then before each of the 4 requests");
  assert.deepEqual(model.requests.map(namesOf), [
    ["read"],
    ["read", "late"],
    ["read", "late"],
    ["read"],
  ]);
  assert.deepEqual(resultOf(history, "c1"), {
    toolCallId: "c1",
    toolName: "late",
    content: 'Error: tool "late" is not available: it arrived after this request. ' +
      "Available tools: read.",
    isError: true,
  });
  assert.equal(resultOf(history, "c2").content, "late ran");
  assert.equal(resultOf(history, "c3").content, "late ran");
});

Deno.test("runAgentLoop() keeps the plain unknown-tool error when unknownToolReason has nothing to say", async () => {
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ id: "c1", name: "grep", args: {} }]),
    scripted.text("done"),
  ]);
  const history: Message[] = [];
  await runAgentLoop({ history, prompt: user("go") }, {
    model,
    tools: [memoryReadTool({})],
    unknownToolReason: () => undefined,
    system: "sys",
    clock: systemClock,
  });
  assert.equal(
    resultOf(history, "c1").content,
    'Error: unknown tool "grep". Available tools: read.',
  );
});

Deno.test("the context keeper counts the tools offered now, not those of the run's start", () => {
  const tools: AnyTool[] = [memoryReadTool({})];
  let offered: readonly AnyTool[] = [...tools];
  const keeper = createContextKeeper({
    state: createContextState(),
    model: new ScriptedModelClient([]),
    system: "sys",
    get tools() {
      return offered;
    },
    clock: systemClock,
    emit: () => {},
  });
  const before = keeper.tokens([]);
  offered = [...tools, controlledTool("late", { run: () => Promise.resolve({ output: "" }) })];
  assert.ok(keeper.tokens([]) > before, "the new tool's definition counts");
});
