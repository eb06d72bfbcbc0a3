/** How agent events, sessions and editor answers map onto ACP (the pure parts of src/acp/). */
import assert from "node:assert/strict";
import { acpStopReason, toolContent, toolKind, updatesOf } from "../../src/acp/updates.ts";
import { historyUpdates } from "../../src/acp/history.ts";
import { approvalOf, permissionOptions } from "../../src/acp/permission.ts";
import { withEditorServers } from "../../src/acp/mcp.ts";
import { editorTrust } from "../../src/acp/trust.ts";
import type * as acp from "@agentclientprotocol/sdk";
import { parseCommand } from "../../src/cli/sessions.ts";
import type { AssistantMessage, Usage } from "../../src/model/types.ts";

const usage: Usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 };

Deno.test("each moat tool has an ACP kind", () => {
  assert.deepEqual(
    ["read", "ls", "edit", "write", "bash", "grep", "find", "web_fetch", "fixture__echo"].map(
      toolKind,
    ),
    ["read", "read", "edit", "edit", "execute", "search", "search", "fetch", "other"],
  );
});

Deno.test("a write shows as a diff from nothing; a failed edit shows its error text", () => {
  const ok = { toolCallId: "w", toolName: "write", content: "Wrote 1 line", isError: false };
  assert.deepEqual(toolContent("write", { path: "n.txt", content: "new\n" }, ok, "/ws"), [
    { type: "diff", path: "/ws/n.txt", oldText: null, newText: "new\n" },
  ]);
  const failed = { toolCallId: "e", toolName: "edit", content: "No match", isError: true };
  assert.deepEqual(
    toolContent("edit", { path: "a", edits: [{ oldText: "x", newText: "y" }] }, failed, "/ws"),
    [{ type: "content", content: { type: "text", text: "No match" } }],
  );
});

Deno.test("bash output is shown by its tail", () => {
  const long = "x".repeat(5000) + "END";
  const [update] = updatesOf({
    type: "tool_update",
    toolCallId: "b",
    name: "bash",
    update: { text: long },
    elapsedMs: 1,
  }, "/ws");
  assert.equal(update?.sessionUpdate, "tool_call_update");
  const text = update?.sessionUpdate === "tool_call_update" &&
      update.content?.[0]?.type === "content" && update.content[0].content.type === "text"
    ? update.content[0].content.text
    : "";
  assert.ok(text.endsWith("END") && text.length <= 4001, String(text.length));
});

Deno.test("a run's outcome is the ACP stop reason", () => {
  const result = (over: Record<string, unknown>) => ({
    result: { stopReason: "completed" as const, turns: 1, usage, ...over },
  });
  assert.equal(acpStopReason(result({}), false), "end_turn");
  assert.equal(acpStopReason(result({ truncated: true }), false), "max_tokens");
  assert.equal(acpStopReason(result({ stopReason: "maxIterations" }), false), "max_turn_requests");
  assert.equal(
    acpStopReason(result({ stopReason: "limitReached", limit: "max_tokens_total" }), false),
    "max_tokens",
  );
  assert.equal(acpStopReason(result({ stopReason: "aborted" }), false), "cancelled");
  assert.equal(acpStopReason({}, true), "cancelled");
});

Deno.test("a reply the model's filter ended is a refusal; an unknown finish is not", () => {
  const done = { result: { stopReason: "completed" as const, turns: 1, usage } };
  const reply = (rawStopReason?: string): AssistantMessage => ({
    role: "assistant",
    blocks: [{ type: "text", text: "I can't help with that." }],
    stopReason: rawStopReason === undefined ? "stop" : "error",
    ...(rawStopReason === undefined ? {} : { rawStopReason }),
    usage,
  });
  assert.equal(acpStopReason(done, false, { lastReply: reply("content_filter") }), "refusal");
  assert.equal(acpStopReason(done, false, { lastReply: reply("refusal") }), "refusal");
  assert.equal(acpStopReason(done, false, { lastReply: reply("weird") }), "end_turn");
  assert.equal(acpStopReason(done, false, { lastReply: reply() }), "end_turn");
  assert.equal(acpStopReason(done, true, { lastReply: reply("content_filter") }), "cancelled");
});

Deno.test("a saved conversation replays as user, agent and tool-call updates", () => {
  const updates = historyUpdates([
    { role: "user", content: "look" },
    {
      role: "assistant",
      blocks: [{ type: "text", text: "ok" }, {
        type: "toolCall",
        id: "r",
        name: "read",
        arguments: { path: "a.txt" },
      }],
      stopReason: "toolUse",
      usage,
      thinking: "hmm",
    },
    {
      role: "toolResult",
      results: [{ toolCallId: "r", toolName: "read", content: "1\thi", isError: false }],
    },
  ], "/ws");
  assert.deepEqual(updates.map((u) => u.sessionUpdate), [
    "user_message_chunk",
    "agent_thought_chunk",
    "agent_message_chunk",
    "tool_call",
    "tool_call_update",
  ]);
  assert.deepEqual(updates[3], {
    sessionUpdate: "tool_call",
    toolCallId: "r",
    title: "read a.txt",
    kind: "read",
    status: "pending",
    locations: [{ path: "/ws/a.txt" }],
  });
});

Deno.test("the editor's answers map onto moat's approvals; anything else is deny", () => {
  const request = {
    toolName: "write",
    location: { access: "write" as const, path: "/ws/src/a.ts" },
    question: "?",
  };
  const offered = permissionOptions(request);
  assert.deepEqual(offered.map((o) => [o.optionId, o.kind]), [
    ["once", "allow_once"],
    ["always", "allow_always"],
    ["directory", "allow_always"],
    ["deny", "reject_once"],
  ]);
  assert.match(offered[2]?.name ?? "", /\/ws\/src/);
  const selected = (optionId: string) => ({ outcome: { outcome: "selected" as const, optionId } });
  assert.equal(approvalOf(selected("once"), offered), "once");
  assert.equal(approvalOf(selected("always"), offered), "always");
  assert.equal(approvalOf(selected("directory"), offered), "directory");
  assert.equal(approvalOf(selected("deny"), offered), "deny");
  assert.equal(approvalOf(selected("bogus"), offered), "deny");
  assert.equal(approvalOf({ outcome: { outcome: "cancelled" } }, offered), "deny");
  // No directory choice for a program or the root.
  const run = permissionOptions({
    toolName: "bash",
    location: { access: "run", program: "make" },
    question: "?",
  });
  assert.ok(!run.some((o) => o.optionId === "directory"));
  assert.equal(approvalOf(selected("directory"), run), "deny", "not offered");
});

Deno.test("the editor's MCP servers are user servers; SSE is refused", () => {
  const added = withEditorServers([], [
    { name: "files", command: "/bin/srv", args: ["-v"], env: [{ name: "A", value: "1" }] },
    { type: "http", name: "web", url: "https://example.com/mcp", headers: [] },
  ]);
  assert.ok(added.ok);
  assert.deepEqual(
    added.servers.map((s) => [s.server.name, s.server.type, s.origin]),
    [["files", "stdio", "user"], ["web", "http", "user"]],
  );
  const sse = withEditorServers([], [{
    type: "sse",
    name: "old",
    url: "https://example.com/sse",
    headers: [],
  }]);
  assert.ok(!sse.ok && /SSE/.test(sse.error));
});

Deno.test("moat acp takes grant flags and a model, never a prompt", () => {
  const parsed = parseCommand(["acp", "--allow-write=src", "-m", "qwen"]);
  assert.ok(parsed.ok && parsed.command === "acp");
  assert.equal(parsed.flags.model, "qwen");
  const prompt = parseCommand(["acp", "fix it"]);
  assert.ok(!prompt.ok && /takes no prompt/.test(prompt.error));
  const session = parseCommand(["acp", "--session", "x.jsonl", "--cwd", "src"]);
  assert.ok(!session.ok);
  assert.match(session.error, /does not take '--cwd', '--session'/);
});

Deno.test("the editor's answer to the trust question: remember, once, else ignore", async () => {
  const question = {
    configFile: "/p/.moat/config.json",
    root: "/p",
    settings: [{ key: "baseUrl" as const, value: '"http://evil"' }],
  };
  const asked: acp.RequestPermissionRequest[] = [];
  const answering = (response: acp.RequestPermissionResponse) =>
    editorTrust("s1", (params) => {
      asked.push(params);
      return Promise.resolve(response);
    });
  const selected = (optionId: string) => ({ outcome: { outcome: "selected" as const, optionId } });
  assert.equal(await answering(selected("remember"))(question), "remember");
  assert.equal(await answering(selected("once"))(question), "once");
  assert.equal(await answering(selected("ignore"))(question), "ignore");
  assert.equal(await answering(selected("made-up"))(question), "ignore");
  assert.equal(await answering({ outcome: { outcome: "cancelled" } })(question), "ignore");
  assert.equal(
    await editorTrust("s1", () => Promise.reject(new Error("gone")))(question),
    "ignore",
  );
  assert.equal(asked[0]?.sessionId, "s1");
  assert.match(JSON.stringify(asked[0]?.toolCall.content), /baseUrl: \\"http:\/\/evil\\"/);
  assert.deepEqual(asked[0]?.options.map((o) => o.kind), [
    "allow_always",
    "allow_once",
    "reject_once",
  ]);
});
