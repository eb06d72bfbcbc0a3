/**
 * `session/set_mode`: moat's permission presets in the editor. "grants" is the command line's
 * grants (questions through the editor); "read-only" refuses every call that is not a read
 * before the grants are looked at, so nothing is asked and nothing changes; "set:NAME" is the
 * user's permission set NAME (`-P NAME` with the command line's other flags): its own sandbox.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { ToolCallGate } from "../agent/hooks.ts";

/** A preset: the launch grants, a read-only look, or a named permission set. */
export type Mode = { kind: "grants" } | { kind: "read-only" } | { kind: "set"; name: string };

/** A permission set offered as a mode, described by the grants it resolves to. */
export interface SetMode {
  name: string;
  description: string;
}

/** The prefix of a permission set's mode id (so a set named "grants" is still a set). */
const SET_PREFIX = "set:";

/** The id of a mode. */
export function modeId(mode: Mode): string {
  switch (mode.kind) {
    case "grants":
    case "read-only":
      return mode.kind;
    case "set":
      return `${SET_PREFIX}${mode.name}`;
    default: {
      const never: never = mode;
      throw new Error(`unknown mode ${JSON.stringify(never)}`);
    }
  }
}

/** The modes a session offers (its permission sets after the two presets), with the current one. */
export function modeState(current: Mode, sets: readonly SetMode[]): acp.SessionModeState {
  return {
    currentModeId: modeId(current),
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
      ...sets.map((set) => ({
        id: modeId({ kind: "set", name: set.name }),
        name: `Permission set ${set.name}`,
        description: set.description,
      })),
    ],
  };
}

/** The mode `id` names among the presets and `sets`, or undefined. */
export function modeOf(id: string, sets: readonly SetMode[]): Mode | undefined {
  if (id === "grants" || id === "read-only") return { kind: id };
  if (!id.startsWith(SET_PREFIX)) return undefined;
  const name = id.slice(SET_PREFIX.length);
  return sets.some((s) => s.name === name) ? { kind: "set", name } : undefined;
}

/** The policy of a session: `base` (the sandbox's), after the read-only mode's own refusal. */
export function modePolicy(base: ToolCallGate, readOnly: () => boolean): ToolCallGate {
  return (call) =>
    readOnly() && call.tool.kind !== "read"
      ? {
        block: true,
        source: "mode",
        reason: `The editor set moat to read-only mode, so "${call.name}" may not run: ` +
          "tell the user what you would do, or ask them to switch the mode to Grants",
      }
      : base(call);
}
