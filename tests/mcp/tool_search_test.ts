/** MCP tool search over a budget: deferral, search, and found tools offered and callable. */
import assert from "node:assert/strict";
import { type AnyTool, toolSpecs } from "../../src/agent/tool.ts";
import { runAgentLoop } from "../../src/agent/mod.ts";
import {
  createMcpClients,
  type McpClients,
  TOOL_SEARCH_TOOL,
  toolSearchOptions,
} from "../../src/mcp/mod.ts";
import { searchTools, toolSchemaTokens } from "../../src/mcp/tool_search.ts";
import type { Message } from "../../src/model/types.ts";
import { systemClock } from "../../src/sys/clock.ts";
import { scripted, ScriptedModelClient } from "../support/scripted_model.ts";
import { fixtureServer, recordingProcessOps, toolContext } from "./_helpers.ts";

async function start(
  budgetTokens: number,
  mode: "auto" | "always" | "never" = "auto",
): Promise<McpClients & AsyncDisposable> {
  const mcp = createMcpClients([fixtureServer("fx", { fixtureArgs: ["--many-tools=40"] })], {
    processOps: recordingProcessOps(),
    path: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    toolSearch: { mode, budgetTokens },
  });
  await mcp.start();
  return Object.assign(mcp, { [Symbol.asyncDispose]: () => mcp.close() });
}

const offered = (mcp: McpClients) => toolSpecs(mcp.tools()).map((s) => s.name);

Deno.test("toolSearchOptions() takes 10 % of the window by default, or the configured share", () => {
  assert.deepEqual(toolSearchOptions(undefined, 200_000), { mode: "auto", budgetTokens: 20_000 });
  assert.deepEqual(toolSearchOptions({ budgetPercent: 5 }, 200_000), {
    mode: "auto",
    budgetTokens: 10_000,
  });
  assert.deepEqual(toolSearchOptions("never", 200_000), { mode: "never", budgetTokens: 20_000 });
  // An unknown window counts as 128k.
  assert.deepEqual(toolSearchOptions({ mode: "always" }, undefined), {
    mode: "always",
    budgetTokens: 12_800,
  });
});

Deno.test("under the budget every MCP tool is offered and there is no search tool", async () => {
  await using mcp = await start(1_000_000);
  const names = offered(mcp);
  assert.ok(names.includes("fx__bulk_39") && names.includes("fx__echo"));
  assert.ok(!names.includes(TOOL_SEARCH_TOOL));
  assert.ok(mcp.tools().every((t) => t.deferred !== true));
  await using never = await start(10, "never");
  assert.ok(!offered(never).includes(TOOL_SEARCH_TOOL));
});

Deno.test("over the budget the MCP tools are deferred behind the search tool, which says how many", async () => {
  await using mcp = await start(2_000);
  const all = mcp.tools();
  assert.ok(toolSchemaTokens(all.filter((t) => t.name !== TOOL_SEARCH_TOOL)) > 2_000);
  assert.deepEqual(offered(mcp), [TOOL_SEARCH_TOOL]);
  // Deferred tools are still there to call, and still belong to their server.
  assert.ok(all.some((t) => t.name === "fx__bulk_39" && t.deferred === true));
  assert.equal(mcp.serverOf("fx__bulk_39"), "fx");
  const search = all[0] as AnyTool;
  const count = mcp.status()[0]?.tools.length as number;
  assert.match(search.description, new RegExp(`^${count} MCP tools are not listed`));
  assert.match(search.description, new RegExp(`servers "fx" \\(${count}\\)`));
  // Nothing changed: the next request gets the same tools (the loop keeps its map and specs).
  const again = mcp.tools();
  assert.ok(again.length === all.length && again.every((t, i) => t === all[i]));
  await using always = await start(1_000_000, "always");
  assert.deepEqual(offered(always), [TOOL_SEARCH_TOOL]);
});

Deno.test("a search returns the matches' full schemas and offers them from the next request", async () => {
  await using mcp = await start(2_000);
  const search = mcp.tools()[0] as AnyTool;
  const result = await search.execute(
    { query: "spreadsheet upload" },
    new AbortController().signal,
    toolContext(),
  );
  const [head, ...lines] = result.output.split("\n");
  assert.equal(head, "1 MCP tool found; call it by name (schemas as JSON, one per line):");
  const spec = JSON.parse(lines[0] as string);
  assert.equal(spec.name, "fx__bulk_7");
  assert.match(spec.description, /Uploads a spreadsheet/);
  assert.equal(Object.keys(spec.parameters.properties).length, 12);
  assert.deepEqual(offered(mcp), [TOOL_SEARCH_TOOL, "fx__bulk_7"]);
  assert.match((mcp.tools()[0] as AnyTool).description, /^\d+ MCP tools are not listed/);
  const selected = await search.execute(
    { query: "select:fx__echo,add" },
    new AbortController().signal,
    toolContext(),
  );
  assert.deepEqual((selected.details as { tools: string[] }).tools, ["fx__echo", "fx__add"]);
  assert.deepEqual(offered(mcp), [TOOL_SEARCH_TOOL, "fx__echo", "fx__add", "fx__bulk_7"]);
  const none = await search.execute(
    { query: "zebra" },
    new AbortController().signal,
    toolContext(),
  );
  assert.match(none.output, /^No MCP tool matches "zebra"/);
});

Deno.test("searchTools() scores name parts over descriptions and honours +required words", () => {
  const tool = (name: string, description: string) =>
    ({
      name,
      description,
      parameters: {},
      kind: "read",
      execute: () => Promise.resolve({ output: "" }),
    }) as AnyTool;
  const tools = [
    tool("a__list_files", "Lists files."),
    tool("b__read", "Reads a file from the list."),
    tool("c__stat", "Information."),
  ];
  assert.deepEqual(searchTools(tools, "list", 5).map((t) => t.name), ["a__list_files", "b__read"]);
  assert.deepEqual(searchTools(tools, "list +reads", 5).map((t) => t.name), ["b__read"]);
  assert.deepEqual(searchTools(tools, "list", 1).map((t) => t.name), ["a__list_files"]);
  assert.deepEqual(searchTools(tools, "select:stat, nope", 5).map((t) => t.name), ["c__stat"]);
});

Deno.test("a deferred MCP tool called right after the search runs within the same turn", async () => {
  await using mcp = await start(2_000);
  const history: Message[] = [];
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ name: TOOL_SEARCH_TOOL, args: { query: "select:fx__echo" } }]),
    scripted.toolCalls([{ name: "fx__echo", args: { text: "found me" } }]),
    scripted.text("done"),
  ]);
  await runAgentLoop({ history, prompt: { role: "user", content: "go" } }, {
    model,
    tools: mcp.tools(),
    system: "test",
    clock: systemClock,
  });
  const seen = model.requests.map((r) => (r.tools ?? []).map((t) => t.name));
  const results = history.filter((m) => m.role === "toolResult").flatMap((m) => m.results);
  assert.equal(results[1]?.isError, false);
  assert.equal(results[1]?.content, "found me");
  // The first request offered only the search tool; later lists re-read tools() per request.
  assert.deepEqual(seen[0], [TOOL_SEARCH_TOOL]);
  assert.deepEqual(offered(mcp), [TOOL_SEARCH_TOOL, "fx__echo"]);
});

Deno.test("an unknown tool's error names the offered tools, not the deferred ones", async () => {
  await using mcp = await start(2_000);
  const history: Message[] = [];
  const model = new ScriptedModelClient([
    scripted.toolCalls([{ name: "fx__nope", args: {} }]),
    scripted.text("done"),
  ]);
  await runAgentLoop({ history, prompt: { role: "user", content: "go" } }, {
    model,
    tools: mcp.tools(),
    system: "test",
    clock: systemClock,
  });
  const results = history.filter((m) => m.role === "toolResult").flatMap((m) => m.results);
  assert.equal(
    results[0]?.content,
    `Error: unknown tool "fx__nope". Available tools: ${TOOL_SEARCH_TOOL}.`,
  );
});
