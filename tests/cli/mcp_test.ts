import assert from "node:assert/strict";
import { mcpPolicy, type McpRun } from "../../src/cli/mcp.ts";
import type { Approval, ApprovalRequest } from "../../src/policy/approve.ts";
import type { PermissionDecision } from "../../src/policy/check.ts";
import type { AnyTool } from "../../src/agent/mod.ts";

const run: McpRun = {
  tools: () => [],
  serverOf: (name) => name.startsWith("tracker__") ? "tracker" : undefined,
  status: () => [],
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
