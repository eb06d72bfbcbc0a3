import assert from "node:assert/strict";
import { defaultGrants } from "../../src/policy/grants.ts";
import { RemoteToolError } from "../../src/sandbox/client.ts";
import { createSandbox, SandboxUnavailableError } from "../../src/sandbox/mod.ts";
import { UsageError } from "../../src/policy/grants.ts";
import type { ToolUpdate } from "../../src/tools/types.ts";
import { fakeTools } from "./_fake_tools.ts";
import { callTool, createLayout, HOST_SCRIPT, MODES, openSandbox, textOf } from "./_helpers.ts";

const FAKE_WORKER = new URL("./_fake_worker.ts", import.meta.url).href;

for (const mode of MODES) {
  Deno.test(`[${mode}] the tool host relays results, progress, aborts and tool errors`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      createTools: fakeTools,
      workerUrl: FAKE_WORKER,
    });
    try {
      assert.equal(sb.mode, mode);
      const echo = sb.tools.find((t) => t.name === "echo")!;
      const updates: ToolUpdate[] = [];
      const out = await echo.execute({ text: "hi" }, new AbortController().signal, {
        toolCallId: "c1",
        onUpdate: (u) => updates.push(u),
      });
      assert.deepEqual(out, { output: "echo: hi", details: { n: 1 } });
      assert.deepEqual(updates, [{ text: "working on hi" }]);

      const controller = new AbortController();
      const waiting = callTool(sb, "wait", {}, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      assert.equal(textOf(await waiting).trim(), "wait aborted");

      await assert.rejects(callTool(sb, "throws", {}), (e) => {
        assert.ok(e instanceof RemoteToolError);
        assert.equal(e.message, "bad tool");
        return true;
      });
    } finally {
      await sb.close();
    }
  });

  Deno.test(`[${mode}] a dead tool host fails pending calls and is replaced`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      createTools: fakeTools,
      workerUrl: FAKE_WORKER,
    });
    try {
      const pending = callTool(sb, "wait", {});
      const crashed = await callTool(sb, "crash", {});
      assert.ok("output" in crashed && crashed.output.isError);
      assert.match(textOf(crashed), /tool host stopped .*boom.*before "crash" finished/s);
      const other = await pending;
      assert.ok("output" in other && other.output.isError, "the other pending call got an error");
      assert.match(textOf(await callTool(sb, "echo", { text: "again" })), /echo: again/);
    } finally {
      await sb.close();
    }
  });
}

Deno.test("--sandbox=require with bubblewrap unusable is a usage error naming the cause", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const error = await openSandbox(layout, "bwrap", defaultGrants(layout.ws), {
    probe: () => Promise.resolve({ usable: false, cause: "user namespaces are disabled" }),
  }).then(() => undefined, (e) => e);
  assert.ok(error instanceof SandboxUnavailableError);
  assert.ok(error instanceof UsageError, "the CLI maps UsageError to exit 2");
  assert.match(error.message, /--sandbox=require.*user namespaces are disabled/);
});

Deno.test("--sandbox=auto without bubblewrap falls back to the Worker with a warning", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const sb = await createSandbox({
    cwd: layout.ws,
    grants: defaultGrants(layout.ws),
    spillDir: layout.spill,
    env: { PATH: "/usr/bin:/bin" },
    secretEnvNames: [],
    hostScript: HOST_SCRIPT,
    probe: () => Promise.resolve({ usable: false, cause: "bwrap is not installed" }),
  });
  try {
    assert.equal(sb.mode, "worker");
    assert.equal(sb.warnings.length, 1);
    assert.match(sb.warnings[0]!, /bwrap is not installed.*bash needs --allow-run/);
    // bash is not OS-sandboxed here, so it needs an explicit --allow-run.
    const outcome = await callTool(sb, "bash", { command: "echo hi" });
    assert.deepEqual(outcome, {
      blocked: 'run access to "bash" is not granted (add --allow-run=bash)',
    });
    assert.match(textOf(await callTool(sb, "read", { path: "a.txt" })), /hello/);
  } finally {
    await sb.close();
  }
});
