import assert from "node:assert/strict";
import { configuredHooks, createHooks, hookLine, type HooksConfig } from "../../src/hooks/mod.ts";
import { withPostToolUse, withPreToolUse } from "../../src/hooks/tool_layer.ts";
import { stopHookReason, submitPrompt } from "../../src/hooks/turn.ts";
import type { HookRecord } from "../../src/report/mod.ts";
import type { OnToolCall, ToolCallInfo } from "../../src/agent/hooks.ts";
import type { AnyTool } from "../../src/agent/tool.ts";
import type { HookRunResult } from "../../src/hooks/runner.ts";
import { fakeRunner } from "./_fake_runner.ts";

function hooksFor(
  user: HooksConfig,
  answer?: (command: string, input: Record<string, unknown>) => Partial<HookRunResult> | Error,
  project?: HooksConfig,
) {
  const configured = configuredHooks({ user, project });
  assert.ok(configured.ok);
  const runner = fakeRunner(answer);
  const records: HookRecord[] = [];
  const hooks = createHooks({
    hooks: configured.hooks,
    runner,
    cwd: "/work/p",
    sessionId: () => "s1",
    report: (r) => records.push(r),
  });
  return { hooks, runner, records, warnings: configured.warnings };
}

const pre = (command: string, matcher = "bash"): HooksConfig => ({
  PreToolUse: [{ matcher, hooks: [{ type: "command", command }] }],
});

function callInfo(name: string, args: Record<string, unknown>): ToolCallInfo {
  return {
    toolCallId: "c1",
    name,
    args,
    tool: { name } as AnyTool,
    signal: new AbortController().signal,
    recheck: (other) =>
      typeof (other as { command?: unknown }).command === "string"
        ? { ok: true, args: other }
        : { ok: false, error: "command: expected a string" },
  };
}

/** A policy that allows only commands inside /work/p and records what it saw. */
function grants(seen: unknown[]): OnToolCall {
  return (call) => {
    seen.push(call.args);
    const command = String((call.args as { command: string }).command);
    return command.includes("/etc/")
      ? {
        block: true,
        reason: "read access to '/etc/passwd' is not granted",
        source: "permissions",
      }
      : undefined;
  };
}

Deno.test("PreToolUse gets Claude Code's fields on stdin and its exit 2 blocks with stderr as the reason", async () => {
  const { hooks, runner, records } = hooksFor(
    pre("block-rm"),
    () => ({ exitCode: 2, stderr: "rm -rf is not allowed here\n" }),
  );
  const seen: unknown[] = [];
  const decision = await withPreToolUse(hooks, grants(seen))(
    callInfo("bash", { command: "rm -rf /" }),
  );
  assert.deepEqual(decision, {
    block: true,
    reason: "rm -rf is not allowed here",
    source: "a PreToolUse hook",
  });
  assert.deepEqual(seen, [], "a blocked call never reaches the policy");
  assert.deepEqual(runner.runs[0]?.input, {
    session_id: "s1",
    transcript_path: null,
    cwd: "/work/p",
    hook_event_name: "PreToolUse",
    tool_name: "bash",
    tool_input: { command: "rm -rf /" },
    tool_use_id: "c1",
  });
  assert.deepEqual(records.map((r) => [r.phase, r.decision]), [
    ["start", undefined],
    ["end", "block"],
  ]);
});

Deno.test("PreToolUse JSON deny and decision block both block; allow does not skip the grants", async () => {
  for (
    const stdout of [
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}',
      '{"decision":"block","reason":"no"}',
    ]
  ) {
    const { hooks } = hooksFor(pre("h"), () => ({ stdout }));
    const decision = await withPreToolUse(hooks, grants([]))(callInfo("bash", { command: "ls" }));
    assert.equal(decision?.block, true);
    assert.equal((decision as { reason: string }).reason, "no");
  }
  const { hooks } = hooksFor(pre("h"), () => ({
    stdout: '{"hookSpecificOutput":{"permissionDecision":"allow"}}',
  }));
  const decision = await withPreToolUse(hooks, grants([]))(
    callInfo("bash", { command: "cat /etc/passwd" }),
  );
  assert.equal(decision?.block, true, "a hook's allow cannot widen the grants");
});

Deno.test("a PreToolUse rewrite inside the grants goes on with the new arguments; one outside is denied", async () => {
  const rewrite = (command: string) => () => ({
    stdout: JSON.stringify({ hookSpecificOutput: { updatedInput: { command } } }),
  });
  const seen: unknown[] = [];
  const inside = hooksFor(pre("h"), rewrite("ls /work/p/src")).hooks;
  assert.deepEqual(
    await withPreToolUse(inside, grants(seen))(callInfo("bash", { command: "ls" })),
    { block: false, args: { command: "ls /work/p/src" } },
  );
  assert.deepEqual(seen, [{ command: "ls /work/p/src" }], "the policy saw the rewritten call");
  const outside = hooksFor(pre("h"), rewrite("cat /etc/passwd")).hooks;
  const denied = await withPreToolUse(outside, grants([]))(callInfo("bash", { command: "ls" }));
  assert.deepEqual(denied, {
    block: true,
    reason: "read access to '/etc/passwd' is not granted",
    source: "permissions",
  });
  const invalid = hooksFor(pre("h"), () => ({ stdout: '{"updatedInput":{"command":7}}' })).hooks;
  const refused = await withPreToolUse(invalid, grants([]))(callInfo("bash", { command: "ls" }));
  assert.match((refused as { reason: string }).reason, /rewrite of the call is not valid/);
});

Deno.test("a hook that times out, fails or throws is a warning and the call goes on to the policy", async () => {
  for (
    const answer of [
      { exitCode: null, timedOut: true },
      { exitCode: 1, stderr: "oops" },
      new Error("runner broke"),
    ]
  ) {
    const { hooks, records } = hooksFor(pre("slow"), () => answer);
    const seen: unknown[] = [];
    const decision = await withPreToolUse(hooks, grants(seen))(
      callInfo("bash", { command: "ls" }),
    );
    assert.equal(decision, undefined);
    assert.equal(seen.length, 1);
    assert.equal(records.at(-1)?.decision, "failed");
  }
});

Deno.test("matchers match whole tool names in any case; MCP tools are matched too", async () => {
  const { hooks, runner } = hooksFor(pre("h", "Bash|mcp__.*"));
  const policy = grants([]);
  for (const name of ["bash", "bashful", "mcp__git__status", "write"]) {
    await withPreToolUse(hooks, policy)(callInfo(name, { command: "x" }));
  }
  assert.deepEqual(runner.runs.map((r) => r.input.tool_name), ["bash", "mcp__git__status"]);
  assert.deepEqual(configuredHooks({ user: pre("h", "(") }).ok, false);
});

Deno.test("hooks of one event run concurrently and any block wins", async () => {
  const { hooks, runner } = hooksFor(
    {
      PreToolUse: [{
        hooks: [{ type: "command", command: "a" }, { type: "command", command: "b" }],
      }],
    },
    (command) => command === "b" ? { exitCode: 2, stderr: "b says no" } : {},
  );
  const decision = await withPreToolUse(hooks, grants([]))(callInfo("bash", { command: "ls" }));
  assert.equal((decision as { reason: string }).reason, "b says no");
  assert.equal(runner.runs.length, 2);
});

Deno.test("PostToolUse sees the result, adds context, and a block marks the result as an error", async () => {
  const { hooks, runner } = hooksFor(
    { PostToolUse: [{ matcher: "write", hooks: [{ type: "command", command: "fmt" }] }] },
    () => ({ stdout: '{"hookSpecificOutput":{"additionalContext":"formatted with deno fmt"}}' }),
  );
  const ctx = {
    call: { toolCallId: "c1", name: "write", args: { path: "a.ts" } },
    result: { toolCallId: "c1", toolName: "write", content: "Wrote a.ts", isError: false },
  };
  const update = await withPostToolUse(hooks)(ctx);
  assert.deepEqual(update, { content: "Wrote a.ts\n\nformatted with deno fmt" });
  assert.deepEqual(runner.runs[0]?.input.tool_response, { output: "Wrote a.ts", is_error: false });
  const blocking = hooksFor(
    { PostToolUse: [{ hooks: [{ type: "command", command: "lint" }] }] },
    () => ({ exitCode: 2, stderr: "lint failed" }),
  ).hooks;
  const blocked = await withPostToolUse(blocking, () => ({ terminate: true }))(ctx);
  assert.deepEqual(blocked, {
    terminate: true,
    isError: true,
    content: "Wrote a.ts\n\nA PostToolUse hook flagged this result: lint failed",
  });
});

Deno.test("UserPromptSubmit adds context or blocks; Stop sends the model back once", async () => {
  const { hooks } = hooksFor(
    { UserPromptSubmit: [{ hooks: [{ type: "command", command: "ticket" }] }] },
    (_c, input) =>
      input.prompt === "stop" ? { exitCode: 2, stderr: "not today" } : { stdout: "Ticket 7" },
  );
  assert.deepEqual(await submitPrompt(hooks, { role: "user", content: "fix it" }), {
    ok: true,
    prompt: { role: "user", content: "fix it\n\nTicket 7" },
  });
  assert.deepEqual(await submitPrompt(hooks, { role: "user", content: "stop" }), {
    ok: false,
    reason: "not today",
  });
  const stop = hooksFor(
    { Stop: [{ hooks: [{ type: "command", command: "tests" }] }] },
    () => ({ stdout: '{"decision":"block","reason":"tests fail"}' }),
  );
  assert.equal(await stopHookReason(stop.hooks, { active: false, lastText: "done" }), "tests fail");
  assert.equal(await stopHookReason(stop.hooks, { active: true, lastText: "done" }), undefined);
  assert.deepEqual(stop.runner.runs.map((r) => r.input.stop_hook_active), [false, true]);
});

Deno.test("a project hook cannot leave the sandbox; the user's own may", () => {
  const hook = { type: "command" as const, command: "x", sandbox: false };
  const configured = configuredHooks({
    user: { Stop: [{ hooks: [hook] }] },
    project: { Stop: [{ hooks: [hook] }] },
  });
  assert.ok(configured.ok);
  assert.deepEqual(configured.hooks.map((h) => [h.spec.source, h.spec.sandbox]), [
    ["user", false],
    ["project", true],
  ]);
  assert.equal(configured.warnings.length, 1);
});

Deno.test("continue: false stops the run: the call is blocked with stopReason and the batch ends the run; a Stop hook's never sends the model back", async () => {
  const stopping = '{"continue":false,"stopReason":"budget spent for today"}';
  const { hooks, records } = hooksFor(pre("budget"), () => ({ stdout: stopping }));
  const decision = await withPreToolUse(hooks, () => undefined)(
    callInfo("bash", { command: "ls" }),
  );
  assert.deepEqual(decision, {
    block: true,
    reason: "budget spent for today",
    source: "a PreToolUse hook",
    terminate: true,
  });
  const end = records.find((r) => r.phase === "end");
  assert.equal(end?.decision, "stop");
  assert.equal(
    hookLine(end as HookRecord),
    'PreToolUse hook "budget" stopped the run: budget spent for today',
  );

  const post = hooksFor(
    { PostToolUse: [{ hooks: [{ type: "command", command: "budget" }] }] },
    () => ({ stdout: stopping }),
  );
  const ctx = {
    call: { toolCallId: "c1", name: "write", args: { path: "a.ts" } },
    result: { toolCallId: "c1", toolName: "write", content: "Wrote a.ts", isError: false },
  };
  assert.equal((await withPostToolUse(post.hooks)(ctx))?.terminate, true);

  const stop = hooksFor(
    { Stop: [{ hooks: [{ type: "command", command: "budget" }] }] },
    () => ({ stdout: '{"continue":false,"decision":"block","reason":"go on"}' }),
  );
  assert.equal(await stopHookReason(stop.hooks, { active: false, lastText: "done" }), undefined);
});

Deno.test("a hook's systemMessage is for the user: in hook_end and the text-mode line, never the model's", async () => {
  const { hooks, records } = hooksFor(
    { UserPromptSubmit: [{ hooks: [{ type: "command", command: "remind" }] }] },
    () => ({ stdout: '{"systemMessage":"Remember: the release is frozen","suppressOutput":true}' }),
  );
  const submitted = await submitPrompt(hooks, { role: "user", content: "fix it" });
  assert.deepEqual(submitted, { ok: true, prompt: { role: "user", content: "fix it" } });
  const end = records.find((r) => r.phase === "end") as HookRecord;
  assert.equal(end.systemMessage, "Remember: the release is frozen");
  assert.equal(hookLine(end), 'UserPromptSubmit hook "remind": Remember: the release is frozen');
});

Deno.test("transcript_path is the session file once the run writes one", async () => {
  const configured = configuredHooks({ user: pre("log") });
  assert.ok(configured.ok);
  const runner = fakeRunner();
  let path: string | null = null;
  const hooks = createHooks({
    hooks: configured.hooks,
    runner,
    cwd: "/work/p",
    sessionId: () => "s1",
    transcriptPath: () => path,
    report: () => {},
  });
  await hooks.run("PreToolUse", {}, { toolName: "bash" });
  path = "/state/moat/sessions/s1.jsonl";
  await hooks.run("PreToolUse", {}, { toolName: "bash" });
  assert.deepEqual(runner.runs.map((r) => r.input.transcript_path), [
    null,
    "/state/moat/sessions/s1.jsonl",
  ]);
});
