import assert from "node:assert/strict";
import { mcpPolicy, type McpRun } from "../../src/cli/mcp.ts";
import type { Approval, ApprovalRequest, HookAnswer } from "../../src/policy/approve.ts";
import type { PermissionDecision } from "../../src/policy/check.ts";
import type { AnyTool } from "../../src/agent/mod.ts";

const run: McpRun = {
  tools: () => [],
  serverOf: (name) => name.startsWith("tracker__") ? "tracker" : undefined,
  status: () => [],
  begin: () => {},
  whenStarted: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

function callOf(name: string) {
  return {
    toolCallId: `id-${name}`,
    name,
    args: {},
    tool: { name } as unknown as AnyTool,
    signal: new AbortController().signal,
  };
}

Deno.test("mcpPolicy() allows what --allow-mcp names and denies the rest, naming the flag", async () => {
  const decisions: PermissionDecision[] = [];
  const policy = mcpPolicy(run, {
    allow: ["tracker__list"],
    onDecision: (d) => decisions.push(d),
  });
  assert.equal(await policy(callOf("tracker__list")), undefined);
  const denied = await policy(callOf("tracker__close"));
  assert.equal(denied?.block, true);
  assert.match(denied?.reason ?? "", /--allow-mcp=tracker__close, or --allow-mcp=tracker/);
  assert.deepEqual(decisions.map((d) => [d.access, d.target, d.outcome, d.by]), [
    ["mcp", "tracker__list", "granted", "grants"],
    ["mcp", "tracker__close", "denied", "no_prompt"],
  ]);
  assert.equal(await mcpPolicy(run, { allow: ["tracker"] })(callOf("tracker__close")), undefined);
  assert.equal(await mcpPolicy(run, { allow: true })(callOf("tracker__close")), undefined);
});

Deno.test("mcpPolicy() asks on a terminal: once, always for the run, or no", async () => {
  const answers: Approval[] = ["once", "always", "deny"];
  const asked: ApprovalRequest[] = [];
  const policy = mcpPolicy(run, {
    allow: undefined,
    prompter: {
      ask(request) {
        asked.push(request);
        return Promise.resolve(answers.shift() ?? "deny");
      },
    },
  });
  assert.equal(await policy(callOf("tracker__a")), undefined);
  assert.equal(await policy(callOf("tracker__b")), undefined);
  // "always" holds for the rest of the run: no second question for tracker__b.
  assert.equal(await policy(callOf("tracker__b")), undefined);
  const declined = await policy(callOf("tracker__c"));
  assert.match(declined?.reason ?? "", /declined by the user; do not retry it/);
  assert.equal(asked.length, 3);
  assert.match(asked[0]?.question ?? "", /call the MCP tool "?tracker__a"? of server "?tracker"?/);
  assert.equal(asked[0]?.location, undefined, "no [d]irectory choice for an MCP call");
});

/** A run whose resource reads go to the server named in the arguments (as McpClients does). */
const withResources: McpRun = {
  ...run,
  serverOf: (name, args) =>
    name === "read_mcp_resource" ? (args as { server?: string }).server : run.serverOf(name),
};

function readOf(server: string) {
  return { ...callOf("read_mcp_resource"), args: { server, uri: "x://a" } };
}

Deno.test("mcpPolicy() grants a resource read by the server in its arguments, or the tool's name", async () => {
  const denied = await mcpPolicy(withResources, { allow: ["tracker"] })(readOf("docs"));
  assert.equal(denied?.block, true);
  assert.match(
    denied?.reason ?? "",
    /"read_mcp_resource" \(server "docs"\).*--allow-mcp=docs for every tool of the server/,
  );
  assert.equal(await mcpPolicy(withResources, { allow: ["docs"] })(readOf("docs")), undefined);
  const anyServer = mcpPolicy(withResources, { allow: ["read_mcp_resource"] });
  assert.equal(await anyServer(readOf("docs")), undefined);
  assert.equal(await anyServer(readOf("tracker")), undefined);
});

Deno.test("mcpPolicy() holds an 'always' for a resource read for that server only", async () => {
  const asked: ApprovalRequest[] = [];
  const policy = mcpPolicy(withResources, {
    allow: undefined,
    prompter: {
      ask(request) {
        asked.push(request);
        return Promise.resolve(asked.length === 1 ? "always" : "deny");
      },
    },
  });
  assert.equal(await policy(readOf("docs")), undefined);
  assert.equal(await policy(readOf("docs")), undefined);
  assert.equal((await policy(readOf("tracker")))?.block, true);
  assert.equal(asked.length, 2);
  assert.match(asked[1]?.question ?? "", /of server "?tracker"?/);
});

Deno.test("mcpPolicy() asks the PermissionRequest hooks first: a denial's reason, an allow for the run, or the user", async () => {
  const decisions: PermissionDecision[] = [];
  const hooked: string[] = [];
  const answers: HookAnswer[] = [
    { decision: "deny", reason: "no tracker writes in CI" },
    { decision: "always" },
    undefined,
  ];
  const policy = mcpPolicy(run, {
    allow: undefined,
    permissionHook: (request) => {
      hooked.push(`${request.toolName} ${request.toolCallId}`);
      return Promise.resolve(answers.shift());
    },
    onDecision: (d) => decisions.push(d),
  });
  const denied = await policy(callOf("tracker__close"));
  assert.equal(denied?.block, true);
  assert.equal(denied?.reason, "no tracker writes in CI");
  assert.equal(await policy(callOf("tracker__list")), undefined);
  // The hook's allow holds for the run: not asked again.
  assert.equal(await policy(callOf("tracker__list")), undefined);
  // No answer and nobody to ask: the silent denial naming the flag.
  assert.match((await policy(callOf("tracker__open")))?.reason ?? "", /--allow-mcp=tracker__open/);
  assert.deepEqual(hooked, [
    "tracker__close id-tracker__close",
    "tracker__list id-tracker__list",
    "tracker__open id-tracker__open",
  ]);
  assert.deepEqual(decisions.map((d) => [d.target, d.outcome, d.by, d.reason]), [
    ["tracker__close", "denied", "hook", "no tracker writes in CI"],
    ["tracker__list", "approved_always", "hook", undefined],
    ["tracker__list", "granted", "grants", undefined],
    ["tracker__open", "denied", "no_prompt", decisions[3]?.reason],
  ]);
});
