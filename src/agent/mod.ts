/** The agent core's public API: the loop, its types and events, and the pieces it is built from. */
export { buildToolMap, runAgentLoop } from "./loop.ts";
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
export {
  type BatchCallOutcome,
  type BatchOptions,
  type BatchOutcome,
  executeToolBatch,
  fillMissingToolResults,
  type NotExecutedDetails,
  type NotExecutedReason,
  toolCallsOf,
} from "./batch.ts";
export {
  type CallRecord,
  executePreparedCall,
  persistableResult,
  type PipelineContext,
  type PreparedCall,
  prepareToolCall,
} from "./pipeline.ts";
