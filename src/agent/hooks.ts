/**
 * The hooks around each call that the agent core calls: `onToolCall` (the policy, before
 * execution) and `afterToolCall` (after it). Implementations need only match these shapes.
 */
import type { ContentBlock, ToolResult } from "../model/types.ts";
import type { AnyTool } from "./tool.ts";

/** A policy's refusal of one tool call. */
export interface PolicyDecision {
  block: true;
  /** Why, for the model and the user (e.g. "write access to '/etc/passwd' is not granted"). */
  reason: string;
  /** Who refused, e.g. "permissions" or "user". */
  source: string;
  /** Also ends the run after this batch (a user hook's `continue: false`). */
  terminate?: boolean;
}

/** What the policy hook is told about a validated call. */
export interface ToolCallInfo {
  toolCallId: string;
  name: string;
  /** Validated (and prepared) arguments. */
  args: unknown;
  tool: AnyTool;
  /** The run's abort signal (interactive approval should give up when it aborts). */
  signal: AbortSignal;
  /**
   * Prepares and validates other arguments for the same tool (a rewritten call), as the pipeline
   * did these: the prepared arguments, or why they are refused.
   */
  recheck?: (args: unknown) => { ok: true; args: unknown } | { ok: false; error: string };
}

/**
 * The call goes on with other arguments (a user hook's rewrite). The pipeline validates them
 * again; whoever returns this must have checked them against the grants already.
 */
export interface ToolCallRewrite {
  block: false;
  /**
   * The new arguments as given (not prepared): the pipeline prepares and validates them again,
   * exactly as `recheck` did, and executes what comes out.
   */
  args: unknown;
}

/**
 * Policy hook run after validation and before execution. Return a decision to block, or
 * `undefined` to allow. A throw or rejection blocks the call with an error result.
 */
export type OnToolCall = (
  call: ToolCallInfo,
) => PolicyDecision | undefined | Promise<PolicyDecision | undefined>;

/**
 * What the agent runs before execution: a policy that may also rewrite the call (the user's
 * PreToolUse hooks in front of the grants).
 */
export type ToolCallGate = (
  call: ToolCallInfo,
) =>
  | PolicyDecision
  | ToolCallRewrite
  | undefined
  | Promise<PolicyDecision | ToolCallRewrite | undefined>;

/** What `afterToolCall` may change about a result. */
export interface AfterToolCallUpdate {
  /** Replaces the content sent to the model. */
  content?: ContentBlock[] | string;
  /** Replaces the error flag. */
  isError?: boolean;
  /** Ends the run after this batch (stopReason "completed", `terminated: true`). */
  terminate?: boolean;
}

/** What the after-hook sees about one executed call. */
export interface AfterToolCallContext {
  call: { toolCallId: string; name: string; args: unknown };
  result: ToolResult;
}

/** Hook run after every execution; a throw or rejection turns the result into an error result. */
export type AfterToolCall = (
  ctx: AfterToolCallContext,
) => AfterToolCallUpdate | undefined | Promise<AfterToolCallUpdate | undefined>;
