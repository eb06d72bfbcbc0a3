/**
 * Text output: the assistant's final text on stdout (streamed as it arrives when stdout is a TTY),
 * one stderr line per tool call (`✓ read src/main.ts (3 ms)`, `✗ edit … blocked by permissions`),
 * a spinner only when stderr is a TTY, colour only on a TTY and never with NO_COLOR.
 *
 * The parts, each editable alone: `_screen.ts` (shared output state and the spinner),
 * `_answer.ts` (streamed text and thinking), `_tools.ts` (tool call lines), `_notes.ts`
 * (warnings, notes, retries, compaction, start and outcome lines), `_status.ts` (the tokens on
 * the spinner, the status line after each answer in interactive mode).
 */
import type { AgentEvent } from "../../agent/mod.ts";
import type { Reporter, RunStartInfo, RunSummary } from "../../report/mod.ts";
import { createAnswerView } from "./_answer.ts";
import { createNotesView } from "./_notes.ts";
import { createScreen, type TextRendererOptions } from "./_screen.ts";
import { createStatusView } from "./_status.ts";
import { createToolsView } from "./_tools.ts";

export { describeCall, formatDuration, oneLine } from "../call_text.ts";
export { workspaceLine } from "../render_lines.ts";
export { type TextRendererOptions, useColor } from "./_screen.ts";

/** Creates the text-mode reporter. */
export function createTextRenderer(options: TextRendererOptions): Reporter {
  const screen = createScreen(options);
  const answer = createAnswerView(screen);
  const tools = createToolsView(screen);
  const notes = createNotesView(screen, tools.busyLabel);
  const status = createStatusView(screen);
  return {
    start(info: RunStartInfo) {
      notes.start(info);
    },
    event(event: AgentEvent) {
      switch (event.type) {
        case "turn_start":
        case "report_start":
        case "thinking_delta":
        case "text_delta":
        case "message_end":
          answer.event(event);
          return status.event(event);
        case "message_start":
        case "message_saved":
          return answer.event(event);
        case "tool_start":
        case "tool_running":
        case "tool_update":
        case "tool_settled":
        case "tool_end":
          return tools.event(event);
        case "model_warning":
        case "health":
        case "model_retry":
        case "compaction_start":
        case "compaction_end":
          return notes.event(event);
        case "agent_end":
          screen.spinner.set(null);
          return;
        default: {
          const never: never = event;
          return never;
        }
      }
    },
    replayPrompt: notes.replayPrompt,
    replayAnswer: answer.replayAnswer,
    permission: tools.permission,
    warning: notes.warning,
    end(summary: RunSummary) {
      screen.spinner.set(null);
      answer.end(summary);
      screen.showNotes();
      notes.end(summary);
      status.end(summary);
    },
    note: notes.note,
    hold: screen.hold,
    dispose: screen.dispose,
  };
}
