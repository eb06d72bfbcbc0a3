/**
 * Lines about the run rather than the answer or a call: the start and outcome lines, warnings,
 * health signals, retries, compaction (its spinner and its line), replayed prompts and the
 * REPL's own notes (which wait for the streamed line to end).
 */
import type { AgentEvent } from "../../agent/mod.ts";
import type { RunStartInfo, RunSummary } from "../../report/mod.ts";
import { formatDuration, oneLine } from "../call_text.ts";
import { compactionLine } from "../outcome_text.ts";
import { outcomeLines, startLines } from "../render_lines.ts";
import { escapeControls } from "../terminal_text.ts";
import type { Screen } from "./_screen.ts";

/** The events shown as notes about the run. */
export type NoteEvent = Extract<
  AgentEvent,
  { type: "model_warning" | "health" | "model_retry" | "compaction_start" | "compaction_end" }
>;

/** Renders the lines about the run. */
export interface NotesView {
  start(info: RunStartInfo): void;
  event(event: NoteEvent): void;
  warning(message: string): void;
  replayPrompt(text: string): void;
  note(text: string): void;
  /** The outcome lines of a run (after the answer). */
  end(summary: RunSummary): void;
}

/** Creates the notes part of the renderer; `busyLabel` is the spinner's label after a compaction. */
export function createNotesView(screen: Screen, busyLabel: () => string): NotesView {
  const { c } = screen;
  const verbose = screen.options.verbose === true;
  let sessionPath: string | null = null;
  const warning = (message: string) => {
    screen.line(`${c("33", "moat: warning:")} ${escapeControls(message)}`);
  };
  return {
    start(info: RunStartInfo) {
      sessionPath = info.session;
      for (const line of startLines(info, { c, verbose })) screen.line(line);
    },
    event(event: NoteEvent) {
      switch (event.type) {
        case "model_warning":
          warning(event.message);
          return;
        case "health":
          screen.line(`${c("33", "!")} ${oneLine(event.message, 200)}`);
          return;
        case "model_retry": {
          // A broken stream that had started showing an answer is always explained.
          if (!verbose && !event.midStream) return;
          const wait = formatDuration(event.waitMs);
          screen.line(
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
          screen.spinner.set("compacting the conversation…");
          return;
        case "compaction_end": {
          const line = compactionLine(event);
          if (line !== null) screen.line(c("2", line));
          // /compact: no run goes on.
          screen.spinner.set(event.reason === "manual" ? null : busyLabel());
          return;
        }
        default: {
          const never: never = event;
          return never;
        }
      }
    },
    warning,
    replayPrompt(text: string) {
      screen.line(c("2", `› ${oneLine(text, 200)}`));
    },
    note(text: string) {
      screen.queueNote(c("2", escapeControls(text)));
      screen.showNotes();
    },
    end(summary: RunSummary) {
      const lines = outcomeLines(summary, {
        c,
        interactive: screen.options.interactive === true,
        verbose,
        sessionPath,
      });
      for (const line of lines) screen.line(line);
    },
  };
}
