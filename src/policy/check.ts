/**
 * The onToolCall policy: resolves what a call touches (`tool.locations(args)`, real paths), asks
 * Deno's permission engine (inside the tool Worker) about each location, asks the user on a TTY
 * when something is not granted, and records every decision.
 */
import type { PolicyDecision, ToolCallInfo } from "../agent/hooks.ts";
import type { ToolLocation } from "../agent/tool.ts";
import {
  approvalQuestion,
  askPermissionHooks,
  describeLocation,
  type PermissionHook,
  type Prompter,
} from "./approve.ts";

/** The call the agent core hands to its onToolCall hook (the agent owns the shape). */
export type PolicyCall = ToolCallInfo;

/** A refusal: the core turns it into `Tool "<name>" blocked by <source>: <reason>`. */
export type PolicyBlock = PolicyDecision;

/** The hook itself (an `OnToolCall` of the agent core that always settles asynchronously). */
export type PolicyHook = (call: ToolCallInfo) => Promise<PolicyDecision | undefined>;

/**
 * Deno's verdict for one location: "granted"; "prompt" = outside the grants; "denied" = on a
 * deny list (never asked about).
 */
export type LocationState = "granted" | "prompt" | "denied";

/** Answers permission questions with Deno's engine (the Worker running the tools). */
export interface PermissionEngine {
  /** One state per location, in order, or why the engine could not answer; must not reject. */
  query(locations: ToolLocation[]): Promise<EngineAnswer>;
}

/** The permission engine's answer: a state per location, or why there is none. */
export type EngineAnswer =
  | { ok: true; states: LocationState[] }
  | { ok: false; reason: string };

/** How a decision was reached. */
export type DecisionOutcome =
  | "granted"
  | "denied"
  | "approved_once"
  | "approved_always"
  | "approved_directory";

/** One recorded decision (the CLI turns these into events and the exit code). */
export interface PermissionDecision {
  toolCallId: string;
  toolName: string;
  /** What kind of access; "mcp" for a call of an MCP server's tool. */
  access: ToolLocation["access"] | "mcp";
  /** Real path, program or host (the tool's name for "mcp"). */
  target: string;
  outcome: DecisionOutcome;
  /** grants: the grants decided; user: the user answered; no_prompt: nobody could be asked;
   * deny_list: a --deny-* flag; protected: a protected path (git hooks and config, .moat, …);
   * error: the locations could not be resolved; hook: a PermissionRequest hook answered. */
  by: "grants" | "user" | "no_prompt" | "deny_list" | "protected" | "error" | "hook";
  /** For denials: the reason the model receives. */
  reason?: string;
  /** For a denial that a grant would lift: the flag the model was told to add. */
  hint?: string;
  /**
   * True for a decision made while the call ran (bash's connection the proxy refused, a program
   * the grants kept from bash), not by the check before it.
   */
  during?: boolean;
}

/** Options of `createPermissionPolicy`. */
export interface PermissionPolicyOptions {
  engine: PermissionEngine;
  /** Asks the user; absent (no TTY) → deny. */
  prompter?: Prompter;
  /** `--no-prompt`: deny instead of asking. */
  noPrompt?: boolean;
  /** The PermissionRequest hooks, asked before the user (and when nobody can be asked). */
  permissionHook?: PermissionHook;
  /** The flag that would grant a location, as the user should type it (grantFlagHint). */
  grantFlag?: (location: ToolLocation) => string;
  /**
   * Why writing a real path is refused even inside the grants (a protected path, see
   * src/policy/protected.ts), or undefined; such writes are denied without asking anyone.
   */
  protectedWrite?: (path: string) => string | undefined;
  /**
   * Reads a file to show the change a question is about (src/sandbox/preview_read.ts), as the
   * tools may read it, `asked` being the location asked about; absent: questions show no diff.
   */
  previewRead?: (absPath: string, asked: ToolLocation) => Promise<Uint8Array | null>;
  /** Receives every decision; must not throw (errors are ignored). */
  onDecision?: (decision: PermissionDecision) => void;
  /** Called when the user approved a location; "always" widens the grants for the run. */
  onApproved?: (
    approval: {
      toolCallId: string;
      location: ToolLocation;
      /** directory: the location's whole directory for the rest of the run. */
      scope: "once" | "always" | "directory";
    },
  ) => void | Promise<void>;
}

/** The source name blocked results carry. */
export const POLICY_SOURCE = "permissions";

function blocked(reason: string): PolicyBlock {
  return { block: true, reason, source: POLICY_SOURCE };
}

/**
 * `write access to "/etc/hosts" is not granted (add --allow-write=.,/etc/hosts)`; `flag` is the
 * whole flag that grants it (grantFlagHint), default `--allow-KIND=TARGET`.
 */
export function notGrantedReason(location: ToolLocation, flag?: string): string {
  const { target } = describeLocation(location);
  return `${location.access} access to "${target}" is not granted (add ${
    grantHint(location, flag)
  })`;
}

/** The flag that grants `location` as the model is told it: `flag`, else `--allow-KIND=TARGET`. */
export function grantHint(location: ToolLocation, flag?: string): string {
  return flag ?? `--allow-${location.access}=${describeLocation(location).target}`;
}

function deniedReason(location: ToolLocation): string {
  const { target } = describeLocation(location);
  return `${location.access} access to "${target}" is denied by --deny-${location.access}`;
}

function declinedReason(location: ToolLocation): string {
  const { target } = describeLocation(location);
  return `${location.access} access to "${target}" was declined by the user; do not retry it`;
}

/** Creates the onToolCall hook that enforces the grants. */
export function createPermissionPolicy(options: PermissionPolicyOptions): PolicyHook {
  const record = (decision: PermissionDecision) => {
    try {
      options.onDecision?.(decision);
    } catch { /* a sink must not change the decision */ }
  };
  return async (call) => {
    const base = { toolCallId: call.toolCallId, toolName: call.name };
    const recordEach = (
      locations: ToolLocation[],
      how: Pick<PermissionDecision, "outcome" | "by" | "reason">,
      hint?: (location: ToolLocation) => string,
    ) => {
      for (const location of locations) {
        record({
          ...base,
          access: location.access,
          target: describeLocation(location).target,
          ...how,
          ...(hint === undefined ? {} : { hint: hint(location) }),
        });
      }
    };
    const fail = (reason: string): PolicyBlock => {
      record({ ...base, access: "read", target: "", outcome: "denied", by: "error", reason });
      return blocked(reason);
    };
    let locations: ToolLocation[];
    try {
      locations = dedupe(await (call.tool.locations?.(call.args) ?? []));
    } catch (e) {
      return fail(
        `cannot resolve what this call touches: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    if (locations.length === 0) return undefined;
    // Before the grants: a protected path is refused even where writing is granted, and no
    // approval may lift it, so nobody is asked.
    for (const location of locations) {
      if (location.access !== "write") continue;
      const detail = options.protectedWrite?.(location.path);
      if (detail === undefined) continue;
      const reason = `write access to "${location.path}" is denied: ${detail}`;
      recordEach([location], { outcome: "denied", by: "protected", reason });
      return blocked(reason);
    }
    const answer = await options.engine.query(locations);
    // Without an answer nothing is known to be granted; say why instead of "not granted".
    if (!answer.ok) return fail(`the permission check could not run: ${answer.reason}`);
    const missing: ToolLocation[] = [];
    for (const [i, location] of locations.entries()) {
      const state = answer.states[i] ?? "prompt";
      if (state === "granted") {
        recordEach([location], { outcome: "granted", by: "grants" });
      } else if (state === "denied") {
        const reason = deniedReason(location);
        recordEach([location], { outcome: "denied", by: "deny_list", reason });
        return blocked(reason);
      } else {
        missing.push(location);
      }
    }
    if (missing.length === 0) return undefined;
    // One question (and one sentence) per target: an edit of /etc/hosts needs read and write
    // of it, and the user decides about "writing /etc/hosts", not about each access on its own.
    const asked = await askHooks(groupByTarget(missing), call, options, recordEach);
    if (!Array.isArray(asked)) return asked;
    const groups = asked;
    if (groups.length === 0) return undefined;
    if (options.prompter === undefined || options.noPrompt || call.signal.aborted) {
      const reason = groups.flat().map((l) => notGrantedReason(l, options.grantFlag?.(l)))
        .join("; ");
      recordEach(
        groups.flat(),
        { outcome: "denied", by: "no_prompt", reason },
        (l) => grantHint(l, options.grantFlag?.(l)),
      );
      return blocked(reason);
    }
    for (const group of groups) {
      const first = group[0] as ToolLocation;
      const { previewRead } = options;
      const answer = await options.prompter.ask({
        toolName: call.name,
        location: first,
        question: approvalQuestion(call.name, first),
        args: call.args,
        ...(previewRead === undefined ? {} : { readFile: (path) => previewRead(path, first) }),
      });
      if (answer === "deny") {
        const reason = declinedReason(first);
        recordEach(group, { outcome: "denied", by: "user", reason });
        return blocked(reason);
      }
      for (const location of group) {
        await options.onApproved?.({ toolCallId: call.toolCallId, location, scope: answer });
        recordEach([location], {
          outcome: answer === "always"
            ? "approved_always"
            : answer === "directory"
            ? "approved_directory"
            : "approved_once",
          by: "user",
        });
      }
    }
    return undefined;
  };
}

/** Records decisions about some locations of the call in hand. */
type RecordEach = (
  locations: ToolLocation[],
  how: Pick<PermissionDecision, "outcome" | "by" | "reason">,
) => void;

/**
 * Asks the PermissionRequest hooks about each group of missing locations: the groups left for
 * the user (or the silent denial), or the block of a hook's denial.
 */
async function askHooks(
  groups: ToolLocation[][],
  call: ToolCallInfo,
  options: PermissionPolicyOptions,
  recordEach: RecordEach,
): Promise<ToolLocation[][] | PolicyBlock> {
  if (options.permissionHook === undefined) return groups;
  const asked = await askPermissionHooks(options.permissionHook, groups, {
    request: (group) => ({
      toolName: call.name,
      location: group[0] as ToolLocation,
      question: approvalQuestion(call.name, group[0] as ToolLocation),
      toolCallId: call.toolCallId,
      args: call.args,
    }),
    async allowed(group) {
      for (const location of group) {
        await options.onApproved?.({ toolCallId: call.toolCallId, location, scope: "always" });
        recordEach([location], { outcome: "approved_always", by: "hook" });
      }
    },
  });
  if ("left" in asked) return asked.left;
  recordEach(asked.denied, { outcome: "denied", by: "hook", reason: asked.reason });
  return blocked(asked.reason);
}

/** How much an access can do, strongest first: it names the group and leads the reason. */
const STRENGTH: Record<ToolLocation["access"], number> = { write: 0, run: 1, net: 2, read: 3 };

/** Missing locations grouped by target (first appearance order), strongest access first. */
function groupByTarget(locations: ToolLocation[]): ToolLocation[][] {
  const groups = new Map<string, ToolLocation[]>();
  for (const location of locations) {
    const key = "path" in location ? `path:${location.path}` : JSON.stringify(location);
    groups.set(key, [...(groups.get(key) ?? []), location]);
  }
  return [...groups.values()].map((g) =>
    [...g].sort((a, b) => STRENGTH[a.access] - STRENGTH[b.access])
  );
}

function dedupe(locations: ToolLocation[]): ToolLocation[] {
  const seen = new Set<string>();
  return locations.filter((l) => {
    const key = JSON.stringify(l);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The Deno permission descriptor for a location. */
export function permissionDescriptor(location: ToolLocation): Deno.PermissionDescriptor {
  switch (location.access) {
    case "read":
      return { name: "read", path: location.path };
    case "write":
      return { name: "write", path: location.path };
    case "run":
      return { name: "run", command: location.program };
    case "net":
      return { name: "net", host: location.host };
    default: {
      const never: never = location;
      throw new Error(`unknown location ${JSON.stringify(never)}`);
    }
  }
}
