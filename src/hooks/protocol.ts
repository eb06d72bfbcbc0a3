/**
 * The hook protocol, as Claude Code and Codex speak it: exit 0 goes on (stdout may be a JSON
 * decision), exit 2 blocks with stderr as the reason, anything else is a warning. Pure.
 */
import type { HookEvent } from "./config_schema.ts";
import type { HookRunResult } from "./runner.ts";

/** What one hook said. */
export type HookVerdict =
  | {
    kind: "ok";
    /** Text for the model (additionalContext, or UserPromptSubmit/SessionStart's plain stdout). */
    context?: string;
    /** PreToolUse: the arguments to use instead. */
    updatedInput?: Record<string, unknown>;
    /** PermissionRequest: "allow" answers the question (honoured only for the user's hooks). */
    allow?: boolean;
  }
  | {
    kind: "block";
    reason: string;
    /** `continue: false`: the run stops after this step (its `stopReason` is the reason). */
    stop?: true;
  }
  | { kind: "failed"; warning: string };

/** How a hook's answers combine: any block wins, contexts join, the last rewrite applies. */
export interface CombinedVerdict {
  block?: { reason: string };
  /** Some hook said `continue: false`: the run stops (the reasons of those hooks). */
  stop?: { reason: string };
  context: string[];
  updatedInput?: Record<string, unknown>;
  allow: boolean;
}

const MAX_REASON_CHARS = 2000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_REASON_CHARS ? `${trimmed.slice(0, MAX_REASON_CHARS)}…` : trimmed;
}

/** Events where a plain (non-JSON) stdout of exit 0 is context for the model. */
const PLAIN_CONTEXT: ReadonlySet<HookEvent> = new Set(["UserPromptSubmit", "SessionStart"]);

/** Reads one hook's result. */
export function interpretResult(event: HookEvent, result: HookRunResult): HookVerdict {
  if (result.error !== undefined) return { kind: "failed", warning: result.error };
  if (result.timedOut) return { kind: "failed", warning: "it timed out" };
  if (result.exitCode === 2) {
    return {
      kind: "block",
      reason: clip(result.stderr) || `the ${event} hook exited with code 2`,
    };
  }
  if (result.exitCode !== 0) {
    const detail = clip(result.stderr);
    return {
      kind: "failed",
      warning: `it exited with code ${result.exitCode ?? "null"}${detail ? `: ${detail}` : ""}`,
    };
  }
  const text = result.stdout.trim();
  if (text === "") return { kind: "ok" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return PLAIN_CONTEXT.has(event) ? { kind: "ok", context: clip(text) } : { kind: "ok" };
  }
  if (!isObject(parsed)) return { kind: "ok" };
  return decisionOf(event, parsed);
}

/** The decision in a hook's stdout JSON. */
function decisionOf(event: HookEvent, out: Record<string, unknown>): HookVerdict {
  const specific = isObject(out.hookSpecificOutput) ? out.hookSpecificOutput : {};
  const reasonText = (value: unknown) =>
    typeof value === "string" && value.trim() !== "" ? clip(value) : undefined;
  const fallback = `blocked by a ${event} hook`;
  // Claude Code: `continue: false` stops the run; the step it answers is blocked too.
  if (out.continue === false) {
    return {
      kind: "block",
      reason: reasonText(out.stopReason) ?? reasonText(out.reason) ?? `stopped by a ${event} hook`,
      stop: true,
    };
  }
  if (out.decision === "block") {
    return { kind: "block", reason: reasonText(out.reason) ?? fallback };
  }
  if (event === "PreToolUse" && specific.permissionDecision === "deny") {
    return {
      kind: "block",
      reason: reasonText(specific.permissionDecisionReason) ?? reasonText(out.reason) ?? fallback,
    };
  }
  if (event === "PermissionRequest" && isObject(specific.decision)) {
    const behavior = specific.decision.behavior;
    if (behavior === "deny") {
      return { kind: "block", reason: reasonText(specific.decision.message) ?? fallback };
    }
    if (behavior === "allow") return { kind: "ok", allow: true };
  }
  const verdict: Extract<HookVerdict, { kind: "ok" }> = { kind: "ok" };
  const context = reasonText(specific.additionalContext);
  if (context !== undefined) verdict.context = context;
  const updated = specific.updatedInput ?? out.updatedInput;
  if (event === "PreToolUse" && isObject(updated)) verdict.updatedInput = updated;
  return verdict;
}

/** Combines the answers of one event's hooks (run concurrently): any block wins. */
export function combineVerdicts(verdicts: readonly HookVerdict[]): CombinedVerdict {
  const combined: CombinedVerdict = { context: [], allow: false };
  const reasons: string[] = [];
  const stops: string[] = [];
  for (const v of verdicts) {
    switch (v.kind) {
      case "block":
        reasons.push(v.reason);
        if (v.stop === true) stops.push(v.reason);
        break;
      case "ok":
        if (v.context !== undefined) combined.context.push(v.context);
        if (v.updatedInput !== undefined) combined.updatedInput = v.updatedInput;
        if (v.allow === true) combined.allow = true;
        break;
      case "failed":
        break;
      default: {
        const never: never = v;
        throw new Error(`unknown hook verdict ${JSON.stringify(never)}`);
      }
    }
  }
  if (reasons.length > 0) combined.block = { reason: reasons.join("\n") };
  if (stops.length > 0) combined.stop = { reason: stops.join("\n") };
  return combined;
}

/**
 * The `systemMessage` of a hook that exited 0 with JSON on stdout: a line for the user (never
 * for the model), or undefined.
 */
export function systemMessageOf(result: HookRunResult): string | undefined {
  if (result.exitCode !== 0 || result.timedOut || result.error !== undefined) return undefined;
  const text = result.stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    const message = isObject(parsed) ? parsed.systemMessage : undefined;
    return typeof message === "string" && message.trim() !== "" ? clip(message) : undefined;
  } catch {
    return undefined;
  }
}
