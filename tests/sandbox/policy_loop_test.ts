import assert from "node:assert/strict";
import { dirname } from "node:path";
import { systemClock } from "../../src/sys/clock.ts";
import { type AgentEvent, runAgentLoop } from "../../src/agent/mod.ts";
import type { Approval } from "../../src/policy/approve.ts";
import type { PermissionDecision } from "../../src/policy/check.ts";
import { defaultGrants } from "../support/grants.ts";
import { scripted, ScriptedModelClient } from "../support/scripted_model.ts";
import { callTool, createLayout, MODES, openSandbox, SECRET, textOf } from "./_helpers.ts";

for (const mode of MODES) {
  Deno.test(`[${mode}] non-TTY denial: the run continues, the model gets the blocked result, events record it`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const decisions: PermissionDecision[] = [];
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      onDecision: (d) => decisions.push(d),
    });
    try {
      const target = `${layout.outside}/secret.txt`;
      const model = new ScriptedModelClient([
        scripted.toolCalls([{ id: "c1", name: "read", args: { path: target } }, {
          id: "c2",
          name: "read",
          args: { path: "a.txt" },
        }]),
        scripted.text("done"),
      ]);
      const events: AgentEvent[] = [];
      const history: Parameters<typeof runAgentLoop>[0]["history"] = [];
      const result = await runAgentLoop({ history, prompt: { role: "user", content: "go" } }, {
        model,
        tools: sb.tools,
        system: "test",
        clock: systemClock,
        onToolCall: sb.onToolCall,
        onEvent: (e) => events.push(e),
      });
      assert.equal(result.stopReason, "completed");
      assert.equal(model.requests.length, 2);
      const reason = `read access to "${target}" is not granted (add --allow-read=.,${target})`;
      const sent = JSON.stringify(model.requests[1]!.messages);
      assert.ok(
        sent.includes(`Tool \\"read\\" blocked by permissions: ${reason.replaceAll('"', '\\"')}`),
        sent,
      );
      assert.ok(sent.includes("hello"), "the granted call still ran");
      assert.ok(!sent.includes(SECRET));
      const ends = events.filter((e) => e.type === "tool_end");
      assert.deepEqual(ends.map((e) => e.type === "tool_end" && e.blocked), [
        { source: "permissions", reason },
        undefined,
      ]);
      assert.deepEqual(
        decisions.map((d) => [d.toolCallId, d.outcome, d.by]),
        [["c1", "denied", "no_prompt"], ["c2", "granted", "grants"]],
      );
    } finally {
      await sb.close();
    }
  });

  Deno.test(`[${mode}] TTY approval: "once" allows one call, "always" widens the grants`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const answers: Approval[] = ["once", "always"];
    const questions: string[] = [];
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      prompter: {
        ask: (r) => {
          questions.push(r.question);
          return Promise.resolve(answers.shift() ?? "deny");
        },
      },
    });
    try {
      const target = `${layout.outside}/secret.txt`;
      const once = textOf(await callTool(sb, "read", { path: target }));
      assert.match(once, new RegExp(SECRET));
      assert.equal(
        questions[0],
        `moat wants to read ${target} (read). Allow? [y]es once / [a]lways this run / ` +
          `[d]irectory ${dirname(target)} this run / [N]o (Enter)`,
      );
      // "once" did not widen anything: the next call asks again ("always" this time).
      const always = textOf(await callTool(sb, "read", { path: target }));
      assert.match(always, new RegExp(SECRET));
      assert.equal(questions.length, 2);
      assert.deepEqual(sb.grants.read, [layout.ws, target]);
      // Now granted: no question, and the restarted host can read it.
      assert.match(textOf(await callTool(sb, "read", { path: target })), new RegExp(SECRET));
      assert.equal(questions.length, 2);
      // Still nothing else outside.
      const other = await callTool(sb, "read", { path: `${layout.outside}/deep/more.txt` });
      assert.ok("blocked" in other);
    } finally {
      await sb.close();
    }
  });
}

for (const mode of MODES) {
  Deno.test(`[${mode}] TTY approval of a write outside the grants lets write and edit do it`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      prompter: { ask: () => Promise.resolve("once") },
    });
    try {
      const created = `${layout.outside}/new.txt`;
      const wrote = await callTool(sb, "write", { path: created, content: "fresh\n" });
      assert.ok("output" in wrote && !wrote.output.isError, textOf(wrote));
      assert.equal(await Deno.readTextFile(created), "fresh\n");
      const existing = `${layout.outside}/secret.txt`;
      const over = await callTool(sb, "write", { path: existing, content: "replaced\n" });
      assert.ok("output" in over && !over.output.isError, textOf(over));
      assert.equal(await Deno.readTextFile(existing), "replaced\n");
      const edited = await callTool(sb, "edit", {
        path: existing,
        edits: [{ oldText: "replaced", newText: "edited" }],
      });
      assert.ok("output" in edited && !edited.output.isError, textOf(edited));
      assert.equal(await Deno.readTextFile(existing), "edited\n");
    } finally {
      await sb.close();
    }
  });
}
