/**
 * Interactive mode on a TTY: a command's live tail under the spinner, its preview once it ended,
 * an edit's diff under its line. Fake stderr, a manual clock; the redraw is checked on a headless
 * terminal emulator, the screen a person would see.
 */
import assert from "node:assert/strict";
import xterm from "@xterm/headless";
import type { AgentEvent } from "../../src/agent/mod.ts";
import { createTextRenderer, type TextRendererOptions } from "../../src/term/render/mod.ts";
import { writeChange } from "../../src/tools/mod.ts";
import { createManualClock } from "../support/manual_clock.ts";

/** An interactive renderer on a TTY (no colour, 60 columns) with its stderr text. */
function interactive(over: Partial<TextRendererOptions> = {}) {
  const clock = createManualClock();
  const out = { stderr: "" };
  const r = createTextRenderer({
    writeStdout: () => {},
    writeStderr: (t: string) => void (out.stderr += t),
    stdoutIsTty: true,
    stderrIsTty: true,
    color: false,
    cwd: "/w",
    interactive: true,
    clock,
    columns: () => 60,
    ...over,
  });
  return { r, out, clock };
}

/** What `text` leaves on a 60-column terminal (12 rows unless told) (newlines as a pty maps them), trailing blanks cut. */
async function screenOf(text: string, rows = 12): Promise<string[]> {
  const term = new xterm.Terminal({ cols: 60, rows, convertEol: true, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(text, resolve));
  const buffer = term.buffer.active;
  const lines = Array.from(
    { length: term.rows },
    (_, i) => buffer.getLine(buffer.viewportY + i)?.translateToString(true).trimEnd() ?? "",
  );
  term.dispose();
  while (lines.at(-1) === "") lines.pop();
  return lines;
}

const bashEnd = (content: string, details: unknown, over = {}): AgentEvent => ({
  type: "tool_end",
  toolCallId: "c1",
  name: "bash",
  args: { command: "make" },
  result: { toolCallId: "c1", toolName: "bash", content, isError: false, details },
  durationMs: 3200,
  ...over,
});

const update = (text: string, elapsedMs: number, totalLines: number, id = "c1"): AgentEvent => ({
  type: "tool_update",
  toolCallId: id,
  name: "bash",
  update: { text, details: { totalLines, totalBytes: text.length } },
  elapsedMs,
});

Deno.test("interactive renderer redraws a running command's last lines in place under the spinner", async () => {
  const { r, out, clock } = interactive();
  r.event({ type: "tool_start", toolCallId: "c1", name: "bash", args: { command: "make" } });
  r.event({ type: "tool_running", toolCallId: "c1", name: "bash" });
  clock.tick(80);
  assert.deepEqual((await screenOf(out.stderr)).slice(1), [], "silent for under a second");
  clock.tick(1000);
  assert.deepEqual((await screenOf(out.stderr)).slice(1), ["  1 s"]);
  r.event(update("one\ntwo\n", 100, 2));
  clock.tick(1000);
  const lines = Array.from({ length: 9 }, (_, i) => `line ${i + 1}`).join("\n") +
    "\n\x1b[31mred\x1b[0m\tx\n" + "w".repeat(200) + "\n";
  r.event(update(lines, 2500, 11));
  clock.tick(80);
  const live = await screenOf(out.stderr);
  assert.match(live[0] ?? "", /^. bash make · \d+s$/);
  assert.deepEqual(live.slice(1), [
    "  line 7",
    "  line 8",
    "  line 9",
    "  red    x",
    `  ${"w".repeat(56)}…`,
    "  2 s · 11 lines",
  ]);
  // Ended: the live region is erased, the call line and its preview stay.
  r.event({
    type: "tool_settled",
    toolCallId: "c1",
    name: "bash",
    result: { toolCallId: "c1", toolName: "bash", content: "", isError: false },
    durationMs: 3200,
  });
  r.event(bashEnd("one\ntwo", { exitCode: 0 }));
  r.event({ type: "agent_end" } as AgentEvent);
  assert.deepEqual(await screenOf(out.stderr), ["✓ bash make (3.2 s)", "  one", "  two"]);
  r.dispose();
  assert.equal(clock.pending(), 0);
});

Deno.test("interactive renderer shows the most recent of parallel commands and escapes controls", async () => {
  const { r, out } = interactive();
  for (const id of ["a", "b"]) {
    r.event({ type: "tool_start", toolCallId: id, name: "bash", args: { command: `job ${id}` } });
    r.event({ type: "tool_running", toolCallId: id, name: "bash" });
  }
  r.event(update("from a\n", 500, 1, "a"));
  r.event(update("from b \x1b]0;title\x07\x07bell\n", 600, 1, "b"));
  let screen = await screenOf(out.stderr);
  assert.deepEqual(screen.slice(1), ["  from b \\u0007bell", "  0 s · 1 line"]);
  r.event({
    type: "tool_settled",
    toolCallId: "b",
    name: "bash",
    result: { toolCallId: "b", toolName: "bash", content: "", isError: false },
    durationMs: 700,
  });
  screen = await screenOf(out.stderr);
  assert.deepEqual(screen.slice(1), ["  from a", "  0 s · 1 line"]);
  r.dispose();
});

Deno.test("interactive renderer previews a long output by its first and last lines, with the exit code on the call line", async () => {
  const { r, out } = interactive();
  const text = Array.from({ length: 30 }, (_, i) => `out ${i + 1}`).join("\n") +
    "\n\nCommand exited with code 2";
  r.event(bashEnd(text, { exitCode: 2 }));
  r.dispose();
  assert.deepEqual(await screenOf(out.stderr), [
    "! bash make (3.2 s) exit 2",
    "  out 1",
    "  out 2",
    "  … 26 lines",
    "  out 29",
    "  out 30",
  ]);
});

Deno.test("interactive renderer caps an edit's diff and points at git diff in a work tree", async () => {
  const before = Array.from({ length: 60 }, (_, i) => `-old ${i + 1}`);
  const after = Array.from({ length: 60 }, (_, i) => `+new ${i + 1}`);
  const patch = ["--- a/f.txt", "+++ b/f.txt", "@@ -1,60 +1,60 @@", ...before, ...after, ""]
    .join("\n");
  const edit = async (over: Partial<TextRendererOptions>) => {
    const { r, out } = interactive(over);
    r.event({
      type: "tool_end",
      toolCallId: "e1",
      name: "edit",
      args: { path: "/w/f.txt" },
      result: { toolCallId: "e1", toolName: "edit", content: "Edited f.txt", isError: false },
      durationMs: 4,
      display: patch,
    });
    r.dispose();
    return await screenOf(out.stderr, 50);
  };
  const lines = await edit({ inGitRepo: true });
  assert.equal(lines[0], "✓ edit f.txt (4 ms)");
  assert.equal(lines.length, 1 + 40 + 1);
  assert.equal(lines[1], "  @@ -1,60 +1,60 @@");
  // Old and new line numbers in a gutter, then the mark.
  assert.equal(lines[2], "   1    -old 1");
  assert.equal(lines[40], "  39    -old 39");
  assert.equal(lines.at(-1), "  … 81 more lines, see `git diff`");
  assert.equal((await edit({})).at(-1), "  … 81 more lines");
  // Print mode (not interactive) keeps its one line.
  assert.deepEqual(await edit({ interactive: false }), ["✓ edit f.txt (4 ms)"]);
});

Deno.test("interactive renderer shows a new file's first lines after a write", async () => {
  const { r, out } = interactive();
  const content = Array.from({ length: 50 }, (_, i) => `row ${i + 1}`).join("\n") + "\n";
  const change = writeChange("new.txt", null, new TextEncoder().encode(content));
  assert.equal(change.kind, "patch");
  r.event({
    type: "tool_end",
    toolCallId: "w1",
    name: "write",
    args: { path: "/w/new.txt" },
    result: { toolCallId: "w1", toolName: "write", content: "Wrote", isError: false },
    durationMs: 2,
    display: change.kind === "patch" ? change.patch : "",
  });
  r.dispose();
  const lines = await screenOf(out.stderr, 50);
  assert.deepEqual(lines.slice(0, 3), ["✓ write new.txt (2 ms)", "   1 +row 1", "   2 +row 2"]);
  assert.equal(lines.length, 1 + 40 + 1);
  assert.equal(lines.at(-1), "  … 10 more lines");
});
