/** The text renderer under test, writing into strings, and a run's summary to end it with. */
import { emptyUsage } from "../../src/model/types.ts";
import type { Reporter, RunSummary } from "../../src/report/mod.ts";
import { createTextRenderer, type TextRendererOptions } from "../../src/term/render/mod.ts";

/** A completed one-turn run's summary (answer "Final answer."), `over` on top. */
export function summary(over: Partial<RunSummary> = {}): RunSummary {
  return {
    stopReason: "completed",
    turns: 1,
    usage: emptyUsage(),
    requests: 1,
    retries: 0,
    toolCalls: 0,
    failed: 0,
    denied: 0,
    exitCode: 0,
    text: "Final answer.",
    ...over,
  };
}

/** A text renderer (off a TTY, no colour, workspace /w unless `over` says otherwise) and its output. */
export function capturedRenderer(
  over: Partial<TextRendererOptions> = {},
): { r: Reporter; out: { stdout: string; stderr: string } } {
  const out = { stdout: "", stderr: "" };
  const r = createTextRenderer({
    writeStdout: (t: string) => void (out.stdout += t),
    writeStderr: (t: string) => void (out.stderr += t),
    stdoutIsTty: false,
    stderrIsTty: false,
    color: false,
    cwd: "/w",
    ...over,
  });
  return { r, out };
}
