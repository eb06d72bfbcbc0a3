/**
 * `session/set_mode`: moat's permission presets in the editor. "grants" is the command line's
 * grants (questions through the editor); "read-only" refuses every call that is not a read
 * before the grants are looked at, so nothing is asked and nothing changes.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { ToolCallGate } from "../agent/hooks.ts";

/** The presets' ids. */
export type ModeId = "grants" | "read-only";

/** The modes a session offers, with the current one. */
export function modeState(current: ModeId): acp.SessionModeState {
  return {
    currentModeId: current,
    availableModes: [
      {
        id: "grants",
        name: "Grants",
        description: "The grants moat was started with; anything else is asked in the editor",
      },
      {
        id: "read-only",
        name: "Read-only",
        description: "Only reads: edits, writes, commands and MCP tools are refused",
      },
    ],
  };
}

/** Whether `id` names a mode. */
export function isModeId(id: string): id is ModeId {
  return id === "grants" || id === "read-only";
}

/** The policy of a session: `base` (the sandbox's), after the mode's own refusal. */
export function modePolicy(base: ToolCallGate, mode: () => ModeId): ToolCallGate {
  return (call) =>
    mode() === "read-only" && call.tool.kind !== "read"
      ? {
        block: true,
        source: "mode",
        reason: `The editor set moat to read-only mode, so "${call.name}" may not run: ` +
          "tell the user what you would do, or ask them to switch the mode to Grants",
      }
      : base(call);
}
