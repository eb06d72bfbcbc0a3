/** Public types of the agent core: run request/options/result, policy hooks and the clock. */
import type {
  ContentBlock,
  Message,
  ModelClient,
  ToolResult,
  Usage,
  UserMessage,
} from "../model/types.ts";
import type { AnyTool } from "../tools/types.ts";
import type { AgentEvent } from "./events.ts";

/**
 * Time and timers, injected so tests control them. The Deno default is `systemClock` in
 * src/sys/clock.ts. Implementations must not throw.
 */
export interface Clock {
  /** Milliseconds since an arbitrary epoch (monotonic enough for durations). */
  now(): number;
  /** Schedules `fn` once after `ms`; returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer from `setTimeout`; unknown or fired handles are ignored. */
  clearTimeout(handle: unknown): void;
}

/** A policy's refusal of one tool call. */
export interface PolicyDecision {
  block: true;
  /** Why, for the model and the user (e.g. "write access to '/etc/passwd' is not granted"). */
  reason: string;
  /** Who refused, e.g. "permissions" or "user". */
  source: string;
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
}

/**
 * Policy hook run after validation and before execution. Return a decision to block, or
 * `undefined` to allow. A throw or rejection blocks the call with an error result.
 */
export type OnToolCall = (
  call: ToolCallInfo,
) => PolicyDecision | undefined | Promise<PolicyDecision | undefined>;

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

/** What one run works on. `history` is mutated in place: messages are pushed as they complete. */
export interface AgentRunRequest {
  history: Message[];
  /** Pushed to history once, before the first model call. */
  prompt?: UserMessage;
}

/** Thresholds of the health signals (events only; the loop never acts on them). */
export interface HealthOptions {
  /** Consecutive assistant turns with the same tool calls before `repeated_calls` (default 5). */
  repeatThreshold?: number;
  /** Failed write-kind results without a success in between before `failing_edits` (default 3). */
  failingEdits?: number;
  /** Window in which those failures must fall (default 5 minutes). */
  failingEditsWindowMs?: number;
}

/** Everything a run needs; side effects come in through these. */
export interface AgentOptions {
  model: ModelClient;
  tools: AnyTool[];
  system: string;
  signal?: AbortSignal;
  /** Maximum assistant turns (default unlimited). */
  maxIterations?: number;
  maxOutputTokens?: number;
  temperature?: number;
  /** Event sink; a throw is caught and ignored. */
  onEvent?: (e: AgentEvent) => void;
  onToolCall?: OnToolCall;
  afterToolCall?: AfterToolCall;
  /** User messages typed while the run was busy; consulted when the model stops. */
  getQueuedMessages?: () => UserMessage[];
  /** Sliding window of concurrently running concurrency-safe calls (default 5). */
  concurrency?: number;
  /** How long pending executions may run after an abort before being abandoned (default 10 s). */
  graceMs?: number;
  /** Clock for durations and the abort grace deadline (`systemClock` from src/sys/clock.ts). */
  clock: Clock;
  /** Generic result cap for tools without a `maxResultChars` of their own (default 50 000). */
  maxResultChars?: number;
  health?: HealthOptions;
}

/** How a run ended. */
export type AgentStopReason = "completed" | "aborted" | "maxIterations";

/** The outcome of `runAgentLoop`. */
export interface AgentRunResult {
  stopReason: AgentStopReason;
  /** Assistant replies received in this run. */
  turns: number;
  /** The final reply ended on the output token limit. */
  truncated?: boolean;
  /** An afterToolCall hook asked to end the run. */
  terminated?: boolean;
  /** Sum of the usage of every reply in this run. */
  usage: Usage;
}
