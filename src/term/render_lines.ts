/** The lines the text renderer writes when a run starts and when it ends (to stderr, in order). */
import { displayPath } from "../tools/mod.ts";
import type { RunStartInfo, RunSummary } from "../report/mod.ts";
import { replayCheckText } from "../replay/check_text.ts";
import { footerLine, limitLine } from "./outcome_text.ts";
import { escapeControls, escapeUnsafe } from "./terminal_text.ts";

/** The first stderr line of every text-mode run: where the tools work, which model, which sandbox. */
export function workspaceLine(info: Pick<RunStartInfo, "cwd" | "model" | "sandbox">): string {
  const sandbox = info.sandbox === "bwrap" ? "sandbox bwrap" : "no OS sandbox";
  return `moat: workspace ${info.cwd} (model ${info.model}, ${sandbox})`;
}

/** Colours `text` with the SGR `code` (or leaves it plain). */
export type Paint = (code: string, text: string) => string;

/** The lines of a run's start: workspace, notes, replay, and with `verbose` the details. */
export function startLines(info: RunStartInfo, options: { c: Paint; verbose: boolean }): string[] {
  const { c } = options;
  const lines: string[] = [];
  lines.push(c("2", escapeUnsafe(workspaceLine(info))));
  for (const note of info.notes ?? []) lines.push(escapeUnsafe(note));
  if (info.replay !== undefined) {
    const r = info.replay;
    lines.push(
      c(
        "2",
        `Replaying ${displayPath(info.cwd, r.file)}: ${r.replies} recorded model repl${
          r.replies === 1 ? "y" : "ies"
        } (${r.recordedModel}); the tools run for real under your grants${
          r.check ? " and their results are compared with the recording" : ""
        }`,
      ),
    );
  }
  if (options.verbose) {
    lines.push(c("2", `moat ${info.moatVersion} · grants: ${info.grantsSummary}`));
    for (const { name, view } of info.mcpViews ?? []) {
      lines.push(c("2", escapeUnsafe(`MCP server "${name}": ${view}`)));
    }
    if (info.session !== null) lines.push(c("2", `session: ${info.session}`));
    if (info.mcpStarting !== undefined) {
      lines.push(
        c("2", `MCP servers starting: ${info.mcpStarting.join(", ")} (tools once ready)`),
      );
    }
  }
  return lines;
}

/** The lines of a run's outcome after the answer: error, limit, stop, replay check, footer. */
export function outcomeLines(
  summary: RunSummary,
  options: { c: Paint; interactive: boolean; verbose: boolean; sessionPath: string | null },
): string[] {
  const { c, sessionPath } = options;
  const lines: string[] = [];
  switch (summary.stopReason) {
    case "contextExhausted":
    case "schemaMismatch":
    case "error":
      lines.push(
        `${c("31", "moat: error:")} ${escapeControls(summary.error?.message ?? "the run failed")}`,
      );
      break;
    case "maxIterations":
    case "limitReached":
      lines.push(`${c("33", "moat:")} ${limitLine(summary)}`);
      break;
    case "interrupted":
    case "terminated":
      lines.push(
        `${c("33", "moat:")} ${summary.stopReason}${
          sessionPath === null ? "" : `; the session was saved (${sessionPath})`
        }`,
      );
      break;
    case "aborted":
      // Interactive mode says so at the prompt.
      if (options.interactive !== true) lines.push(`${c("33", "moat:")} aborted`);
      break;
    case "completed":
      if (summary.truncated) {
        const next = options.interactive === true
          ? "ask it to continue"
          : sessionPath === null
          ? "ask for a shorter answer"
          : `to get the rest, run: moat -c "continue"`;
        lines.push(
          `${
            c("33", "moat: warning:")
          } the answer was truncated: the model's reply hit its output-token limit; ${next}`,
        );
      }
      break;
    default: {
      const never: never = summary.stopReason;
      return never;
    }
  }
  const check = summary.replay?.check;
  if (check !== undefined) {
    const text = replayCheckText(check).trimEnd();
    lines.push(check.first === undefined ? c("32", text) : c("31", text));
  }
  if (summary.denied > 0 && summary.exitCode === 4) {
    lines.push(
      `${
        c("31", "moat:")
      } ${summary.denied} tool call(s) were denied (exit 4 because of --fail-on-deny)`,
    );
  } else if (options.verbose) {
    lines.push(c("2", footerLine(summary)));
  }
  return lines;
}
