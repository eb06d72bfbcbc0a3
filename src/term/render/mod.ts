/**
 * Text output: the assistant's final text on stdout (streamed as it arrives when stdout is a TTY),
 * one stderr line per tool call (`✓ read src/main.ts (3 ms)`, `✗ edit … blocked by permissions`),
 * a spinner only when stderr is a TTY, colour only on a TTY and never with NO_COLOR.
 */
import type { AgentEvent, Clock } from "../../agent/mod.ts";
import { compactionLine } from "../outcome_text.ts";
import { describeCall, exitCodeOf, formatDuration, oneLine } from "../call_text.ts";

export { describeCall, formatDuration, oneLine } from "../call_text.ts";
import type { Reporter, RunStartInfo, RunSummary } from "../../report/mod.ts";
import { isRefusalDuringCall, resultText } from "../../report/mod.ts";
import { escapeControls, escapeUnsafe } from "../terminal_text.ts";
import { outcomeLines, startLines } from "../render_lines.ts";

export { workspaceLine } from "../render_lines.ts";

/** Where and how the text renderer writes. */
export interface TextRendererOptions {
  writeStdout: (text: string) => void;
  writeStderr: (text: string) => void;
  stdoutIsTty: boolean;
  stderrIsTty: boolean;
  /** Use ANSI colours on stderr (decide with `useColor`). */
  color: boolean;
  /** Workspace, to show paths relative to it. */
  cwd: string;
  verbose?: boolean;
  /** Timer source for the spinner (only used when stderr is a TTY). */
  clock?: Clock;
  /** Interactive mode: the final text is always streamed, never printed again at the end. */
  interactive?: boolean;
  /** Terminal width; the spinner line is cut to fit (a wrapped line could not be redrawn). */
  columns?: () => number;
}

/** Colour only on a TTY, and never when NO_COLOR is set to a non-empty value. */
export function useColor(isTty: boolean, env: Record<string, string>): boolean {
  return isTty && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Creates the text-mode reporter. */
export function createTextRenderer(options: TextRendererOptions): Reporter {
  const c = (code: string, text: string) => options.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  const spinnerOn = options.stderrIsTty && options.clock !== undefined;
  const running = new Map<string, string>();
  let spinnerLabel: string | null = null;
  let spinnerTimer: unknown = undefined;
  let spinnerShown = false;
  let frame = 0;
  let atLineStart = true;
  let disposed = false;
  let held = false;
  let sessionPath: string | null = null;
  // Notes wait for the streamed line to end: a line cut in two by one would read as two.
  const notes: string[] = [];

  const clearSpinner = () => {
    if (spinnerShown) {
      options.writeStderr("\r\x1b[K");
      spinnerShown = false;
    }
  };
  const drawSpinner = () => {
    if (spinnerLabel === null || disposed || held) return;
    const glyph = SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length];
    const columns = options.columns?.() ?? 0;
    // An unknown size (0, e.g. a pty nobody sized) means the usual 80 columns.
    const width = columns > 0 ? Math.max(20, columns) : 80;
    const label = oneLine(spinnerLabel, width - 3);
    options.writeStderr(`\r\x1b[K${c("36", glyph ?? "")} ${c("2", label)}`);
    spinnerShown = true;
  };
  const tick = () => {
    spinnerTimer = undefined;
    if (spinnerLabel === null || disposed || held) return;
    drawSpinner();
    spinnerTimer = options.clock?.setTimeout(tick, 80);
  };
  const setSpinner = (label: string | null) => {
    if (!spinnerOn) return;
    spinnerLabel = label;
    if (label === null) {
      if (spinnerTimer !== undefined) options.clock?.clearTimeout(spinnerTimer);
      spinnerTimer = undefined;
      clearSpinner();
      return;
    }
    // Text streaming to the same terminal must not be interleaved with the spinner.
    if (!atLineStart || held) return;
    if (spinnerTimer === undefined) tick();
  };
  // Streamed reasoning goes to stderr, dimmed; it ends with a line break before anything else.
  let thinkingOpen = false;
  let thinkingAtLineStart = true;
  const endThinking = () => {
    if (!thinkingOpen) return;
    if (!thinkingAtLineStart) options.writeStderr("\n");
    thinkingOpen = false;
    thinkingAtLineStart = true;
  };
  const stderrLine = (line: string) => {
    endThinking();
    clearSpinner();
    if (!atLineStart && options.stdoutIsTty) {
      options.writeStdout("\n");
      atLineStart = true;
    }
    options.writeStderr(line + "\n");
    if (spinnerLabel !== null && spinnerOn) drawSpinner();
  };
  const showNotes = () => {
    if (!atLineStart) return;
    for (const note of notes.splice(0)) stderrLine(note);
  };
  const streaming = options.stdoutIsTty || options.interactive === true;

  return {
    start(info: RunStartInfo) {
      sessionPath = info.session;
      for (const line of startLines(info, { c, verbose: options.verbose === true })) {
        stderrLine(line);
      }
    },
    event(event: AgentEvent) {
      switch (event.type) {
        case "turn_start":
        case "report_start":
          setSpinner("thinking…");
          return;
        case "thinking_delta": {
          if (!streaming) return;
          setSpinner(null);
          if (!thinkingOpen && !atLineStart && options.stdoutIsTty) {
            options.writeStdout("\n");
            atLineStart = true;
          }
          thinkingOpen = true;
          options.writeStderr(c("2", escapeControls(event.delta)));
          thinkingAtLineStart = event.delta.endsWith("\n");
          return;
        }
        case "model_warning":
          stderrLine(`${c("33", "moat: warning:")} ${escapeControls(event.message)}`);
          return;
        case "text_delta": {
          if (!streaming) return;
          setSpinner(null);
          endThinking();
          // Waiting notes go in where a line of the answer ends.
          const cut = notes.length === 0 ? 0 : event.delta.lastIndexOf("\n") + 1;
          for (const piece of [event.delta.slice(0, cut), event.delta.slice(cut)]) {
            if (piece === "") continue;
            options.writeStdout(escapeControls(piece));
            atLineStart = piece.endsWith("\n");
            showNotes();
          }
          return;
        }
        case "message_end":
          endThinking();
          if (streaming && !atLineStart) {
            options.writeStdout("\n");
            atLineStart = true;
          }
          setSpinner(null);
          showNotes();
          return;
        case "tool_start":
          running.set(
            event.toolCallId,
            `${event.name} ${describeCall(event.name, event.args, options.cwd)}`,
          );
          setSpinner(running.values().next().value ?? null);
          return;
        case "tool_end": {
          running.delete(event.toolCallId);
          const next = running.values().next().value ?? "thinking…";
          // The spinner redrawn under this line must not show the call that just ended.
          if (spinnerLabel !== null) spinnerLabel = next;
          const target = describeCall(event.name, event.args, options.cwd);
          const took = c("2", `(${formatDuration(event.durationMs)})`);
          if (event.blocked !== undefined) {
            stderrLine(
              `${c("31", "✗")} ${event.name} ${target} ${
                c("31", `blocked by ${event.blocked.source}`)
              }` +
                c("2", `: ${oneLine(event.blocked.reason, 240)}`),
            );
          } else if (event.result.isError) {
            stderrLine(
              `${c("31", "✗")} ${event.name} ${target} ${took}: ${
                oneLine(resultText(event.result.content), 160)
              }`,
            );
          } else if (exitCodeOf(event.result.details) !== undefined) {
            // A command that ran but failed is not a success: its own mark and its exit code.
            stderrLine(
              `${c("33", "!")} ${event.name} ${target} ${took} ${
                c("33", `exit ${exitCodeOf(event.result.details)}`)
              }`,
            );
          } else {
            stderrLine(`${c("32", "✓")} ${event.name} ${target} ${took}`);
          }
          setSpinner(next);
          return;
        }
        case "health":
          stderrLine(`${c("33", "!")} ${oneLine(event.message, 200)}`);
          return;
        case "model_retry": {
          // A broken stream that had started showing an answer is always explained.
          if (!options.verbose && !event.midStream) return;
          const wait = formatDuration(event.waitMs);
          stderrLine(
            c(
              "2",
              `moat: ${
                oneLine(event.message, 200)
              } Retrying in ${wait} (retry ${event.attempt} of ${event.maxRetries}).`,
            ),
          );
          return;
        }
        case "compaction_start":
          setSpinner("compacting the conversation…");
          return;
        case "compaction_end": {
          const line = compactionLine(event);
          if (line !== null) stderrLine(c("2", line));
          setSpinner(running.values().next().value ?? "thinking…");
          return;
        }
        case "agent_end":
          setSpinner(null);
          return;
        case "message_start":
        case "message_saved":
        case "tool_running":
        case "tool_update":
        case "tool_settled":
          return;
        default: {
          const never: never = event;
          return never;
        }
      }
    },
    replayPrompt(text: string) {
      stderrLine(c("2", `› ${oneLine(text, 200)}`));
    },
    replayAnswer(text: string) {
      if (text === "") return;
      // A streamed answer is on the terminal already (ending in a newline): only separate it.
      if (streaming) options.writeStdout("\n");
      else options.writeStdout(escapeControls(text.endsWith("\n") ? `${text}\n` : `${text}\n\n`));
    },
    permission(decision) {
      // Blocked calls have their own line; a refusal while a call ran does not.
      if (!isRefusalDuringCall(decision)) return;
      const what = decision.access === "net" ? "connection to" : "program";
      stderrLine(
        `${c("31", "✗")} ${decision.toolName} ${what} ${escapeUnsafe(decision.target)} ${
          c("31", "refused")
        }${c("2", `: ${oneLine(decision.reason ?? "", 160)}`)}`,
      );
    },
    warning(message: string) {
      stderrLine(`${c("33", "moat: warning:")} ${escapeControls(message)}`);
    },
    end(summary: RunSummary) {
      setSpinner(null);
      // A limit's answer is an answer too; only the model's report has been streamed already.
      const limited = summary.stopReason === "maxIterations" ||
        summary.stopReason === "limitReached";
      const answered = summary.stopReason === "completed" || limited;
      const shown = streaming && (!limited || summary.finalAnswer === true);
      if (streaming && !atLineStart) {
        options.writeStdout("\n");
        atLineStart = true;
      }
      if (answered && !shown && summary.text !== "") {
        const text = escapeControls(summary.text);
        options.writeStdout(text.endsWith("\n") ? text : `${text}\n`);
      }
      showNotes();
      const lines = outcomeLines(summary, {
        c,
        interactive: options.interactive === true,
        verbose: options.verbose === true,
        sessionPath,
      });
      for (const line of lines) stderrLine(line);
    },
    note(text: string) {
      notes.push(c("2", escapeControls(text)));
      showNotes();
    },
    hold(value: boolean) {
      if (value === held) return;
      held = value;
      if (held) {
        if (spinnerTimer !== undefined) options.clock?.clearTimeout(spinnerTimer);
        spinnerTimer = undefined;
        clearSpinner();
      } else if (spinnerLabel !== null) {
        setSpinner(spinnerLabel);
      }
    },
    dispose() {
      setSpinner(null);
      disposed = true;
    },
  };
}
