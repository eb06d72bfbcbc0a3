/** The agent core's public API: the loop, its types and events, and the pieces it is built from. */
export { buildToolMap, MAX_TURNS_TEXT, runAgentLoop, TRUNCATED_CALL_TEXT } from "./loop.ts";
export type {
  AfterToolCall,
  AfterToolCallContext,
  AfterToolCallUpdate,
  AgentOptions,
  AgentRunRequest,
  AgentRunResult,
  AgentStopReason,
  Clock,
  HealthOptions,
  OnToolCall,
  PolicyDecision,
  ToolCallInfo,
} from "./types.ts";
export type { AgentEvent, HealthSignalKind } from "./events.ts";
export { safeEmitter } from "./events.ts";
export {
  type BatchCallOutcome,
  type BatchOptions,
  type BatchOutcome,
  DEFAULT_CONCURRENCY,
  executeToolBatch,
  fillMissingToolResults,
  INTERRUPTED_TEXT,
  refuseToolCalls,
  toolCallsOf,
} from "./batch.ts";
export {
  type CallRecord,
  capContent,
  executePreparedCall,
  persistableResult,
  type PipelineContext,
  type PreparedCall,
  prepareToolCall,
} from "./pipeline.ts";
export { createAbortGrace, DEFAULT_GRACE_MS } from "./grace.ts";
export { createHealthMonitor, type HealthMonitor, type HealthSignal } from "./health.ts";
