/**
 * The model's answer: streamed text on stdout (when streaming; rendered as markdown when the
 * screen has it), streamed thinking dimmed on stderr, the "thinking…" spinner of a turn, and the
 * final text printed at the end when it was not streamed.
 */
import type { AgentEvent } from "../../agent/mod.ts";
import type { RunSummary } from "../../report/mod.ts";
import { escapeControls } from "../terminal_text.ts";
import { createMarkdownAnswers, type MarkdownAnswers } from "./_markdown_answer.ts";
import type { Screen } from "./_screen.ts";

/** The events of the model's answer. */
export type AnswerEvent = Extract<
  AgentEvent,
  {
    type:
      | "turn_start"
      | "report_start"
      | "message_start"
      | "thinking_delta"
      | "text_delta"
      | "message_end"
      | "message_saved";
  }
>;

/** Renders the model's answer. */
export interface AnswerView {
  event(event: AnswerEvent): void;
  /** A replayed exchange's answer (not the last one). */
  replayAnswer(text: string): void;
  /** Ends the stdout line and prints the final answer if it was not streamed. */
  end(summary: RunSummary): void;
}

/** Creates the answer part of the renderer. */
export function createAnswerView(screen: Screen): AnswerView {
  const streaming = screen.streaming;
  const textDelta = (delta: string) => {
    screen.spinner.set(null);
    screen.endStderrStream();
    // Waiting notes go in where a line of the answer ends.
    const cut = !screen.hasWaitingNotes() ? 0 : delta.lastIndexOf("\n") + 1;
    for (const piece of [delta.slice(0, cut), delta.slice(cut)]) {
      if (piece === "") continue;
      screen.writeStdout(escapeControls(piece));
      screen.atLineStart = piece.endsWith("\n");
      screen.showNotes();
    }
  };
  const markdown = markdownOf(screen, textDelta);
  return {
    event(event: AnswerEvent) {
      switch (event.type) {
        case "turn_start":
        case "report_start":
          screen.spinner.set("thinking…");
          return;
        case "thinking_delta":
          if (!streaming) return;
          screen.spinner.set(null);
          screen.streamStderr(
            screen.c("2", escapeControls(event.delta)),
            event.delta.endsWith("\n"),
          );
          return;
        case "text_delta":
          if (markdown !== undefined) markdown.push(event.delta);
          else if (streaming) textDelta(event.delta);
          return;
        case "message_end":
          markdown?.end();
          screen.endStderrStream();
          if (streaming) screen.endStdoutLine();
          screen.spinner.set(null);
          screen.showNotes();
          return;
        case "message_start":
        case "message_saved":
          return;
        default: {
          const never: never = event;
          return never;
        }
      }
    },
    replayAnswer(text: string) {
      if (text === "") return;
      // A streamed answer is on the terminal already (ending in a newline): only separate it.
      if (streaming) screen.writeStdout("\n");
      else screen.writeStdout(escapeControls(text.endsWith("\n") ? `${text}\n` : `${text}\n\n`));
    },
    end(summary: RunSummary) {
      // A limit's answer is an answer too; only the model's report has been streamed already.
      const limited = summary.stopReason === "maxIterations" ||
        summary.stopReason === "limitReached";
      const answered = summary.stopReason === "completed" || limited;
      const shown = streaming && (!limited || summary.finalAnswer === true);
      if (streaming) screen.endStdoutLine();
      if (answered && !shown && summary.text !== "") {
        const text = escapeControls(summary.text);
        screen.writeStdout(text.endsWith("\n") ? text : `${text}\n`);
      }
    },
  };
}

// Markdown rendering of streamed answers, when the screen is given it (interactive, stdout a TTY).
function markdownOf(
  screen: Screen,
  raw: (text: string) => void,
): MarkdownAnswers | undefined {
  const setup = screen.options.markdown;
  if (setup === undefined || !screen.streaming) return undefined;
  return createMarkdownAnswers(setup, {
    columns: () => screen.options.columns?.() ?? 0,
    // The spinner stays until the first rendered line; notes show after each written block.
    lines(text) {
      screen.spinner.set(null);
      screen.endStderrStream();
      screen.writeStdout(text);
      screen.atLineStart = text.endsWith("\n");
      screen.showNotes();
    },
    raw,
    disposed: () => screen.disposed,
  });
}
