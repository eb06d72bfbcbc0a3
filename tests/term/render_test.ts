import assert from "node:assert/strict";
import type { AgentEvent } from "../../src/agent/mod.ts";
import { describeCall, formatDuration, useColor } from "../../src/term/render/mod.ts";
import { capturedRenderer as renderer, summary } from "./_renderer.ts";
import { createManualClock } from "../cli/_fakes.ts";

const toolEnd = (over: Partial<Extract<AgentEvent, { type: "tool_end" }>>): AgentEvent => ({
  type: "tool_end",
  toolCallId: "c1",
  name: "read",
  args: { path: "/w/src/main.ts" },
  result: { toolCallId: "c1", toolName: "read", content: "ok", isError: false },
  durationMs: 3,
  ...over,
});

Deno.test("createTextRenderer() off a TTY prints only the final text on stdout and one line per tool on stderr", () => {
  const { r, out } = renderer();
  r.event({ type: "turn_start", turn: 1 });
  r.event({ type: "text_delta", delta: "thinking aloud" });
  r.event(toolEnd({}));
  r.event(
    toolEnd({
      name: "edit",
      args: { path: "/etc/hosts" },
      blocked: { source: "permissions", reason: 'write access to "/etc/hosts" is not granted' },
      result: { toolCallId: "c1", toolName: "edit", content: "blocked", isError: true },
    }),
  );
  r.event(
    toolEnd({
      name: "bash",
      args: { command: "npm test\necho done" },
      durationMs: 1500,
      result: { toolCallId: "c1", toolName: "bash", content: "Exit code 1", isError: true },
    }),
  );
  r.end(summary());
  r.dispose();
  assert.equal(out.stdout, "Final answer.\n");
  assert.deepEqual(out.stderr.trimEnd().split("\n"), [
    "✓ read src/main.ts (3 ms)",
    '✗ edit /etc/hosts blocked by permissions: write access to "/etc/hosts" is not granted',
    "✗ bash npm test … (1.5 s): Exit code 1",
  ]);
  assert.ok(!out.stderr.includes("\x1b["), "no colour off a TTY");
});

Deno.test("createTextRenderer() streams text on a TTY and colours stderr only when allowed", () => {
  const { r, out } = renderer({ stdoutIsTty: true, color: true });
  r.event({ type: "text_delta", delta: "Hel" });
  r.event({ type: "text_delta", delta: "lo" });
  r.event(toolEnd({}));
  r.end(summary({ text: "Hello" }));
  assert.equal(out.stdout, "Hello\n");
  assert.ok(out.stderr.includes("\x1b[32m✓"));
  assert.equal(useColor(true, { NO_COLOR: "1" }), false);
  assert.equal(useColor(true, {}), true);
  assert.equal(useColor(false, {}), false);
});

Deno.test("createTextRenderer() shows a spinner only on a stderr TTY and stops it on dispose", () => {
  const clock = createManualClock();
  const { r, out } = renderer({ stderrIsTty: true, clock });
  r.event({ type: "turn_start", turn: 1 });
  clock.tick(80);
  assert.match(out.stderr, /⠙ thinking…/);
  r.hold?.(true);
  assert.equal(clock.pending(), 0, "held while a question is asked");
  r.hold?.(false);
  r.dispose();
  assert.equal(clock.pending(), 0);

  const { r: noTty, out: plain } = renderer({ clock });
  noTty.event({ type: "turn_start", turn: 1 });
  assert.equal(clock.pending(), 0);
  assert.equal(plain.stderr, "");
  noTty.dispose();
});

Deno.test("createTextRenderer() explains non-completed runs on stderr", () => {
  const { r, out } = renderer();
  r.end(summary({ stopReason: "maxIterations", exitCode: 3, turns: 4 }));
  r.end(
    summary({ stopReason: "error", exitCode: 1, error: { kind: "server", message: "HTTP 500" } }),
  );
  r.end(summary({ denied: 2, exitCode: 4 }));
  assert.match(out.stderr, /stopped after 4 turn\(s\).*--max-turns/);
  assert.match(out.stderr, /moat: error: HTTP 500/);
  assert.match(out.stderr, /2 tool call\(s\) were denied.*--fail-on-deny/);
});

Deno.test("createTextRenderer() prints a limit's answer on stdout once, streamed or not", () => {
  const limited = (finalAnswer: boolean) =>
    summary({
      stopReason: "limitReached",
      limit: "max_wall_time",
      finalAnswer,
      exitCode: 3,
      text: finalAnswer ? "My report." : "moat stopped the run.",
    });
  // Off a TTY nothing streams: the answer comes at the end, the model's report or moat's summary.
  for (const finalAnswer of [true, false]) {
    const { r, out } = renderer();
    r.end(limited(finalAnswer));
    assert.equal(out.stdout, finalAnswer ? "My report.\n" : "moat stopped the run.\n");
    assert.match(out.stderr, /wall-time limit was reached/);
  }
  // Streamed, the model's report is on stdout already; moat's summary never streamed.
  const streamed = renderer({ stdoutIsTty: true });
  streamed.r.event({ type: "text_delta", delta: "My report." });
  streamed.r.end(limited(true));
  assert.equal(streamed.out.stdout, "My report.\n");
  const summarised = renderer({ interactive: true });
  summarised.r.event({ type: "text_delta", delta: "Reading" });
  summarised.r.end(limited(false));
  assert.equal(summarised.out.stdout, "Reading\nmoat stopped the run.\n");
});

Deno.test("describeCall() and formatDuration() keep lines short and paths relative", () => {
  assert.equal(describeCall("read", { path: "/w/a/b.ts" }, "/w"), "a/b.ts");
  assert.equal(describeCall("read", '{"path": "a.ts"', "/w"), "(invalid arguments)");
  assert.equal(describeCall("edit", ["a.ts"], "/w"), "(invalid arguments)");
  assert.equal(describeCall("read", { path: "/elsewhere/x" }, "/w"), "/elsewhere/x");
  assert.equal(describeCall("read", { path: "/w/..notes.md" }, "/w"), "..notes.md");
  assert.equal(describeCall("ls", { path: "/w" }, "/w"), ".");
  assert.equal(
    describeCall("fetch", { url: "https://deno.com/blog", limit: 5 }, "/w"),
    "https://deno.com/blog",
  );
  assert.equal(describeCall("grep", { pattern: "TODO", path: "src" }, "/w"), '"TODO" src');
  assert.equal(describeCall("bash", { command: "x".repeat(200) }, "/w").length, 80);
  assert.equal(formatDuration(3.2), "3 ms");
  assert.equal(formatDuration(1234), "1.2 s");
  assert.equal(formatDuration(125_000), "2 min 5 s");
});

Deno.test("createTextRenderer() keeps each tool line to one short line without control characters", () => {
  const { r, out } = renderer();
  const longPath = `/elsewhere/${"d/".repeat(300)}file.txt`;
  r.event(toolEnd({ args: { path: longPath } }));
  r.event(toolEnd({ name: "write", args: { path: "evil\x1b[2J\nname.txt" } }));
  r.event(toolEnd({ name: "grep", args: { pattern: "p".repeat(500), path: "src" } }));
  r.event(
    toolEnd({
      args: { path: longPath },
      blocked: { source: "permissions", reason: `read access to "${longPath}" is not granted` },
      result: { toolCallId: "c1", toolName: "read", content: "blocked", isError: true },
    }),
  );
  r.dispose();
  const lines = out.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 4);
  // The reason keeps the flag that would allow the call (up to 240 characters).
  for (const line of lines) assert.ok([...line].length <= 400, `short: ${line}`);
  assert.ok(!out.stderr.includes("\x1b"), "no escape sequence from the arguments");
  assert.ok((lines[1] ?? "").startsWith("✓ write evil\\u001b[2J\\u000aname.txt"), lines[1]);
  assert.match(lines[0] ?? "", /…/);
});

Deno.test("createTextRenderer() redraws the spinner with the next activity after a tool line", () => {
  const clock = createManualClock();
  const { r, out } = renderer({ stderrIsTty: true, clock });
  r.event({ type: "turn_start", turn: 1 });
  r.event({ type: "tool_start", toolCallId: "c1", name: "read", args: { path: "/w/a.ts" } });
  clock.tick(80);
  const mark = out.stderr.length;
  r.event(toolEnd({ args: { path: "/w/a.ts" } }));
  const after = out.stderr.slice(mark);
  assert.match(after, /✓ read a\.ts/);
  assert.doesNotMatch(after.slice(after.indexOf("✓")), /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] read a\.ts/);
  assert.match(after, /thinking…/);
  r.dispose();
});

Deno.test("createTextRenderer() says the session was saved on interrupt only when there is one", () => {
  const start = {
    model: "m",
    cwd: "/w",
    grants: {},
    grantsSummary: "",
    sandbox: "worker",
    tools: [],
    moatVersion: "0",
  };
  for (const session of [null, "/s/1.jsonl"]) {
    const { r, out } = renderer();
    r.start({ ...start, session });
    r.end(summary({ stopReason: "terminated", exitCode: 143 }));
    assert.equal(
      out.stderr,
      "moat: workspace /w (model m, no OS sandbox)\n" +
        (session === null
          ? "moat: terminated\n"
          : "moat: terminated; the session was saved (/s/1.jsonl)\n"),
    );
  }
});

Deno.test("createTextRenderer() fits the spinner line into the terminal width", () => {
  const clock = createManualClock();
  const { r, out } = renderer({ stderrIsTty: true, clock, columns: () => 40 });
  r.event({
    type: "tool_start",
    toolCallId: "c1",
    name: "bash",
    args: { command: `echo ${"y".repeat(300)}` },
  });
  clock.tick(80);
  const frames = out.stderr.split("\r\x1b[K").filter((f) => f !== "");
  assert.ok(frames.length > 0);
  for (const f of frames) assert.ok([...f].length < 40, `fits: ${f}`);
  r.dispose();
});

Deno.test("createTextRenderer() treats an unknown terminal width (0) as 80 columns", () => {
  const clock = createManualClock();
  const { r, out } = renderer({ stderrIsTty: true, clock, columns: () => 0 });
  r.event({ type: "turn_start", turn: 1 });
  clock.tick(80);
  assert.match(out.stderr, /thinking…/);
  r.dispose();
});

const replayInfo = {
  model: "recorded-model",
  cwd: "/w",
  grants: {},
  grantsSummary: "none",
  sandbox: "worker",
  tools: ["ls"],
  session: null,
  moatVersion: "0.0.0",
};
const replayStart = (check: boolean, replies = 3) => ({
  ...replayInfo,
  replay: {
    file: "/w/examples/tour.jsonl",
    recordedModel: "gpt-x",
    recordedAt: "2025-01-01T00:00:00.000Z",
    replies,
    check,
  },
});

Deno.test("createTextRenderer() announces a replay on stderr with the recording, its model and the check", () => {
  const { r, out } = renderer();
  r.start(replayStart(false));
  assert.equal(
    out.stderr,
    "moat: workspace /w (model recorded-model, no OS sandbox)\n" +
      "Replaying examples/tour.jsonl: 3 recorded model replies (gpt-x); the tools run for real under your grants\n",
  );
  assert.equal(out.stdout, "");
  const checked = renderer();
  checked.r.start(replayStart(true, 1));
  assert.match(
    checked.out.stderr,
    /^moat: workspace \/w .*\nReplaying examples\/tour\.jsonl: 1 recorded model reply \(gpt-x\);.* and their results are compared with the recording\n$/,
  );
  const plain = renderer();
  plain.r.start(replayInfo);
  assert.doesNotMatch(plain.out.stderr, /Replaying/, "no banner without a replay");
});

Deno.test("createTextRenderer() names the workspace, the model and the sandbox in its first stderr line", () => {
  for (const verbose of [false, true]) {
    const { r, out } = renderer({ verbose });
    r.start({ ...replayInfo, cwd: "/home/me/app\x1b[2J", model: "gpt-4.1", sandbox: "bwrap" });
    r.warning("later");
    const lines = out.stderr.split("\n");
    assert.equal(lines[0], "moat: workspace /home/me/app\\u001b[2J (model gpt-4.1, sandbox bwrap)");
    assert.equal(lines.filter((l) => l.includes("/home/me/app")).length, 1, out.stderr);
    assert.equal(out.stdout, "");
  }
  const off = renderer();
  off.r.start({ ...replayInfo, sandbox: "worker" });
  assert.equal(off.out.stderr, "moat: workspace /w (model recorded-model, no OS sandbox)\n");
});

Deno.test("createTextRenderer() ends a checked replay with the check's verdict on stderr", () => {
  const passed = renderer();
  passed.r.end(
    summary({
      replay: {
        file: "/w/t.jsonl",
        played: 2,
        replies: 2,
        check: { compared: 2, differing: 0, unrecorded: 0 },
      },
    }),
  );
  assert.equal(passed.out.stdout, "Final answer.\n");
  assert.match(passed.out.stderr, /moat: replay check passed: 2 tool result\(s\) match/);

  const failed = renderer();
  failed.r.end(
    summary({
      exitCode: 5,
      replay: {
        file: "/w/t.jsonl",
        played: 2,
        replies: 2,
        check: {
          compared: 2,
          differing: 1,
          unrecorded: 0,
          first: {
            toolName: "read",
            toolCallId: "c1",
            args: { path: "a.txt" },
            replyLine: 3,
            resultLine: 4,
            aspect: "content",
            recorded: "old",
            live: "new",
            diff: "--- recorded\n+++ live\n@@ -1,1 +1,1 @@\n-old\n+new",
          },
        },
      },
    }),
  );
  assert.match(failed.out.stderr, /moat: replay check failed: 1 of 2 tool result\(s\) differ/);
  assert.match(failed.out.stderr, /Tool call "read" differs.*\n.*\n.*line 3.*line 4\n/);
  assert.match(failed.out.stderr, / {2}-old\n {2}\+new\n/);

  const unchecked = renderer();
  unchecked.r.end(summary({ replay: { file: "/w/t.jsonl", played: 1, replies: 1 } }));
  assert.doesNotMatch(unchecked.out.stderr, /replay check/);
});

Deno.test("createTextRenderer() shows each replayed user message as one line on stderr", () => {
  const { r, out } = renderer();
  r.replayPrompt?.("Show me around\nthis repository");
  r.replayPrompt?.("x".repeat(300));
  const lines = out.stderr.split("\n");
  assert.equal(lines[0], "› Show me around …");
  assert.ok((lines[1] ?? "").startsWith("› xxx") && (lines[1] ?? "").endsWith("…"));
  assert.ok([...(lines[1] ?? "")].length <= 202);
  assert.equal(out.stdout, "");
});

Deno.test("createTextRenderer() escapes terminal sequences in the model's answer, streamed or not, and keeps newlines", () => {
  const answer = "Done.\x1b]52;c;ZWNobyBoaQ==\x07\r\n\x1b[1A\x1b[2Kline\u202eevil\n";
  for (const stdoutIsTty of [false, true]) {
    const { r, out } = renderer({ stdoutIsTty, color: true });
    r.event({ type: "text_delta", delta: answer.slice(0, 7) });
    r.event({ type: "text_delta", delta: answer.slice(7) });
    r.warning("server said \x1b[31mred\x1b[0m");
    r.end(summary({ text: answer }));
    r.dispose();
    assert.ok(!out.stdout.includes("\x1b"), JSON.stringify(out.stdout));
    assert.ok(!out.stdout.includes("\r") && !out.stdout.includes("\u202e"));
    assert.ok(out.stdout.includes("Done.\\u001b]52;c;ZWNobyBoaQ==\\u0007\n\\u001b[1A"));
    assert.ok(out.stderr.includes("server said \\u001b[31mred"), out.stderr);
    // moat's own colours stay.
    assert.ok(out.stderr.includes("\x1b[33mmoat: warning:\x1b[0m"));
  }
});

Deno.test("createTextRenderer() marks a command that exited non-zero with ! and its exit code", () => {
  const { r, out } = renderer();
  r.event(
    toolEnd({
      name: "bash",
      args: { command: "false" },
      result: {
        toolCallId: "c1",
        toolName: "bash",
        content: "exit 3",
        isError: false,
        details: { exitCode: 3 },
      },
    }),
  );
  r.event(
    toolEnd({
      name: "bash",
      args: { command: "true" },
      result: {
        toolCallId: "c1",
        toolName: "bash",
        content: "ok",
        isError: false,
        details: { exitCode: 0 },
      },
    }),
  );
  r.dispose();
  const [failed, fine] = out.stderr.trimEnd().split("\n");
  assert.match(failed ?? "", /^! bash false \(\d+ ms\) exit 3$/);
  assert.match(fine ?? "", /^✓ bash true \(\d+ ms\)$/);
});

Deno.test("createTextRenderer() streams reasoning dimmed on stderr and keeps stdout the answer only", () => {
  const { r, out } = renderer({ stdoutIsTty: true, color: true });
  r.event({ type: "thinking_delta", delta: "Let me" });
  r.event({ type: "thinking_delta", delta: " check." });
  r.event({ type: "text_delta", delta: "Hello" });
  r.event(toolEnd({}));
  r.end(summary({ text: "Hello" }));
  assert.equal(out.stdout, "Hello\n");
  assert.ok(out.stderr.startsWith("\x1b[2mLet me\x1b[0m\x1b[2m check.\x1b[0m\n"), out.stderr);
  const plain = renderer();
  plain.r.event({ type: "thinking_delta", delta: "hidden" });
  plain.r.end(summary({ text: "Hello" }));
  assert.ok(!plain.out.stderr.includes("hidden"), "not shown off a TTY");
  assert.equal(plain.out.stdout, "Hello\n");
});

Deno.test("createTextRenderer() ends streamed reasoning with a line break before the next stderr line", () => {
  const { r, out } = renderer({ stdoutIsTty: true });
  r.event({ type: "thinking_delta", delta: "Reading a.txt" });
  r.event({ type: "model_warning", message: "The server returned tool calls as text." });
  assert.equal(
    out.stderr,
    "Reading a.txt\nmoat: warning: The server returned tool calls as text.\n",
  );
  assert.equal(out.stdout, "");
});
