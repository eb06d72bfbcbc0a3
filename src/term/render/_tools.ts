/**
 * Tool calls: the spinner naming the running call, one stderr line per ended call
 * (`✓ read src/main.ts (3 ms)`, `✗ edit … blocked by permissions`, `! bash … exit 1`), and the
 * line of a program or connection refused while a call ran. In interactive mode on a TTY also:
 * a running command's last output lines under the spinner (the live region), then a short preview
 * of its output under its line, and the diff of every edit and write.
 */
import type { AgentEvent } from "../../agent/mod.ts";
import type { Reporter } from "../../report/mod.ts";
import { isRefusalDuringCall, resultText } from "../../report/mod.ts";
import { describeCall, exitCodeOf, formatDuration, oneLine } from "../call_text.ts";
import { patchLines } from "../diff_view.ts";
import { escapeUnsafe } from "../terminal_text.ts";
import type { Screen } from "./_screen.ts";
import { liveLines, type OutputLook, previewLines } from "./_tool_output.ts";

/** A permission decision of the policy, as the reporter gets it. */
type PermissionDecision = Parameters<NonNullable<Reporter["permission"]>>[0];

/** The events of tool calls. */
export type ToolEvent = Extract<
  AgentEvent,
  { type: "tool_start" | "tool_running" | "tool_update" | "tool_settled" | "tool_end" }
>;

/** Renders tool calls. */
export interface ToolsView {
  event(event: ToolEvent): void;
  /** A permission decision; only a refusal while a call ran gets a line here. */
  permission(decision: PermissionDecision): void;
  /** The spinner's label while the model works: the first running call, else "thinking…". */
  busyLabel(): string;
}

/** A registered call on the spinner: its label and when it started (running, else registered). */
interface RunningCall {
  label: string;
  since: number;
}

/** Creates the tool-call part of the renderer. */
export function createToolsView(screen: Screen): ToolsView {
  const { c } = screen;
  const cwd = screen.options.cwd;
  const now = () => screen.options.clock?.now() ?? 0;
  const running = new Map<string, RunningCall>();
  const first = () => running.values().next().value;
  const busyLabel = () => first()?.label ?? "thinking…";
  const endLine = (event: Extract<ToolEvent, { type: "tool_end" }>): string => {
    const target = describeCall(event.name, event.args, cwd);
    const took = c("2", `(${formatDuration(event.durationMs)})`);
    if (event.blocked !== undefined) {
      return `${c("31", "✗")} ${event.name} ${target} ${
        c("31", `blocked by ${event.blocked.source}`)
      }` +
        c("2", `: ${oneLine(event.blocked.reason, 240)}`);
    }
    if (event.result.isError) {
      return `${c("31", "✗")} ${event.name} ${target} ${took}: ${
        oneLine(resultText(event.result.content), 160)
      }`;
    }
    const exitCode = exitCodeOf(event.result.details);
    if (exitCode !== undefined) {
      // A command that ran but failed is not a success: its own mark and its exit code.
      return `${c("33", "!")} ${event.name} ${target} ${took} ${c("33", `exit ${exitCode}`)}`;
    }
    return `${c("32", "✓")} ${event.name} ${target} ${took}`;
  };
  const live = createLiveTails(screen);
  const below = (event: Extract<ToolEvent, { type: "tool_end" }>) =>
    live.enabled ? linesBelow(event, screen) : [];
  return {
    event(event: ToolEvent) {
      switch (event.type) {
        case "tool_start": {
          running.set(event.toolCallId, {
            label: `${event.name} ${describeCall(event.name, event.args, cwd)}`,
            since: now(),
          });
          const shown = first();
          screen.spinner.set(shown?.label ?? null, shown?.since);
          return;
        }
        case "tool_end": {
          running.delete(event.toolCallId);
          const next = first();
          const label = next?.label ?? "thinking…";
          // The spinner redrawn under this line must not show the call that just ended.
          screen.spinner.relabel(label, next?.since);
          live.end(event.toolCallId);
          // One write: the spinner is redrawn once, under the diff or preview.
          screen.line([endLine(event), ...below(event)].join("\n"));
          screen.spinner.set(label, next?.since);
          return;
        }
        case "tool_running": {
          // Its time counts from when it really started, not from its wait in the queue.
          const call = running.get(event.toolCallId);
          if (call !== undefined) {
            call.since = now();
            if (first() === call) screen.spinner.relabel(call.label, call.since);
          }
          // A command that prints nothing yet still shows its elapsed time (after a second).
          if (event.name === "bash") live.update(event.toolCallId, { elapsedMs: 0, text: "" });
          return;
        }
        case "tool_update":
          live.update(event.toolCallId, {
            elapsedMs: event.elapsedMs,
            text: event.update.text ?? "",
            totalLines: totalLinesOf(event.update.details),
          });
          return;
        case "tool_settled":
          live.end(event.toolCallId);
          return;
        default: {
          const never: never = event;
          return never;
        }
      }
    },
    permission(decision: PermissionDecision) {
      // Blocked calls have their own line; a refusal while a call ran does not.
      if (!isRefusalDuringCall(decision)) return;
      const what = decision.access === "net" ? "connection to" : "program";
      screen.line(
        `${c("31", "✗")} ${decision.toolName} ${what} ${escapeUnsafe(decision.target)} ${
          c("31", "refused")
        }${c("2", `: ${oneLine(decision.reason ?? "", 160)}`)}`,
      );
    },
    busyLabel,
  };
}

/** What an ended call shows under its line: an edit's or write's diff, a command's preview. */
function linesBelow(event: Extract<ToolEvent, { type: "tool_end" }>, screen: Screen): string[] {
  if (event.blocked !== undefined) return [];
  const columns = screen.options.columns?.() ?? 0;
  if ((event.name === "edit" || event.name === "write") && !event.result.isError) {
    if (event.display === undefined || event.display === "") return [];
    return patchLines(event.display, {
      color: screen.options.color,
      columns,
      indent: "  ",
      inGitRepo: screen.options.inGitRepo === true,
    });
  }
  if (event.name !== "bash") return [];
  const look: OutputLook = { c: screen.c, columns };
  return previewLines(resultText(event.result.content), exitCodeOf(event.result.details), look);
}

function totalLinesOf(details: unknown): number | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const total = (details as { totalLines?: unknown }).totalLines;
  return typeof total === "number" ? total : undefined;
}

/** How long a command that printed nothing yet runs before the live region shows its time. */
const LIVE_SILENT_MS = 1000;

/** The latest progress of one running call. */
interface Tail {
  text: string;
  /** The run clock's time the call started running. */
  startedAt: number;
  totalLines?: number;
  /** When it last changed (the live region shows the latest). */
  order: number;
}

/** The running calls' output tails; the live region shows the one that changed last. */
function createLiveTails(screen: Screen) {
  const { options } = screen;
  const clock = options.clock;
  // The live region belongs to interactive mode on a terminal; print mode keeps its lines.
  const enabled = options.interactive === true && options.stderrIsTty;
  const tails = new Map<string, Tail>();
  let order = 0;
  const latest = () => {
    let found: Tail | undefined;
    for (const tail of tails.values()) {
      if (found === undefined || tail.order > found.order) found = tail;
    }
    return found;
  };
  const draw = () => {
    const tail = latest();
    if (tail === undefined || clock === undefined) return [];
    const elapsedMs = clock.now() - tail.startedAt;
    // A quick, silent command shows no region that would only flash.
    if (tail.text === "" && elapsedMs < LIVE_SILENT_MS) return [];
    const look: OutputLook = { c: screen.c, columns: options.columns?.() ?? 0 };
    return liveLines(tail.text, { elapsedMs, totalLines: tail.totalLines }, look);
  };
  const refresh = () => screen.spinner.setLive(tails.size > 0 ? draw : null);
  return {
    enabled,
    update(id: string, next: { elapsedMs: number; text: string; totalLines?: number | undefined }) {
      if (!enabled || clock === undefined) return;
      const tail: Tail = {
        text: next.text,
        startedAt: clock.now() - next.elapsedMs,
        order: ++order,
      };
      if (next.totalLines !== undefined) tail.totalLines = next.totalLines;
      tails.set(id, tail);
      refresh();
    },
    end(id: string) {
      if (tails.delete(id)) refresh();
    },
  };
}
