/**
 * Tool calls: the spinner naming the running call, one stderr line per ended call
 * (`✓ read src/main.ts (3 ms)`, `✗ edit … blocked by permissions`, `! bash … exit 1`), and the
 * line of a program or connection refused while a call ran.
 */
import type { AgentEvent } from "../../agent/mod.ts";
import type { Reporter } from "../../report/mod.ts";
import { isRefusalDuringCall, resultText } from "../../report/mod.ts";
import { describeCall, exitCodeOf, formatDuration, oneLine } from "../call_text.ts";
import { escapeUnsafe } from "../terminal_text.ts";
import type { Screen } from "./_screen.ts";

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
          screen.line(endLine(event));
          screen.spinner.set(label, next?.since);
          return;
        }
        case "tool_running": {
          // Its time counts from when it really started, not from its wait in the queue.
          const call = running.get(event.toolCallId);
          if (call === undefined) return;
          call.since = now();
          if (first() === call) screen.spinner.relabel(call.label, call.since);
          return;
        }
        case "tool_update":
        case "tool_settled":
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
