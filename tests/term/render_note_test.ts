import assert from "node:assert/strict";
import { createTextRenderer } from "../../src/term/render/mod.ts";

Deno.test("text renderer: a note waits for the streamed line to end, then has a line of its own", () => {
  let screen = "";
  const renderer = createTextRenderer({
    writeStdout: (t) => void (screen += t),
    writeStderr: (t) => void (screen += t),
    stdoutIsTty: true,
    stderrIsTty: false,
    color: false,
    cwd: "/w",
    interactive: true,
  });
  renderer.event({ type: "text_delta", delta: "The answer is " });
  renderer.note?.("queued: also \x1b[2Jthis");
  assert.equal(screen, "The answer is ");
  renderer.event({ type: "text_delta", delta: "42.\nMore" });
  assert.equal(screen, "The answer is 42.\nqueued: also \\u001b[2Jthis\nMore");
  renderer.note?.("queued: and that");
  renderer.end({
    stopReason: "completed",
    turns: 1,
    usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 },
    requests: 1,
    retries: 0,
    toolCalls: 0,
    failed: 0,
    denied: 0,
    exitCode: 0,
    text: "The answer is 42.\nMore",
  });
  assert.equal(
    screen,
    "The answer is 42.\nqueued: also \\u001b[2Jthis\nMore\nqueued: and that\n",
  );
  renderer.dispose();
});
