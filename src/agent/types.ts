/** Public types of the agent core: what a run takes (request, options) and the clock. */
import type { Message, ModelClient, UserMessage } from "../model/types.ts";
import type { AgentEvent } from "./events.ts";
import type { AfterToolCall, ToolCallGate } from "./hooks.ts";
import type { AnyTool } from "./tool.ts";
import type { ContextState } from "./compaction/keeper.ts";
import type { RunLimits } from "./limits.ts";

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
  /**
   * The tools offered. A function is asked before every model request, so tools that arrive
   * during the run (an MCP server that became ready) are offered from the next request on; the
   * calls of a reply run with the tools of its request. Must not throw.
   */
  tools: AnyTool[] | (() => AnyTool[]);
  /**
   * Why a called tool is not offered, when the caller knows (e.g. its MCP server is still
   * starting): a clause for the error result, else undefined. Must not throw.
   */
  unknownToolReason?: (name: string) => string | undefined;
  system: string;
  signal?: AbortSignal;
  /**
   * Maximum turns (default unlimited): model requests with tools, whose calls run; at the limit
   * the run ends with the report request instead of another turn.
   */
  maxIterations?: number;
  maxOutputTokens?: number;
  temperature?: number;
  /** Event sink; a throw is caught and ignored. */
  onEvent?: (e: AgentEvent) => void;
  onToolCall?: ToolCallGate;
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
  /**
   * Context compaction: the window state shared by the runs of one session. Without it the loop
   * never compacts and an overflow error rejects the run.
   */
  context?: ContextState;
  /** Limits besides maxIterations; each ends the run with a final answer without tools. */
  limits?: RunLimits;
  /** Sent with every request: the server makes the final text JSON valid against it. */
  responseSchema?: Record<string, unknown>;
}
