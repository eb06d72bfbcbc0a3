/**
 * The agent core's public API: the loop, what it takes and reports, the contracts it calls (tools
 * and hooks), and the pieces it is built from.
 */
export { buildToolMap, runAgentLoop } from "./loop.ts";
export type { AgentOptions, AgentRunRequest, Clock, HealthOptions } from "./types.ts";
export type {
  AgentEvent,
  AgentRunResult,
  AgentStopReason,
  CompactionEndEvent,
  CompactionOutcome,
  CompactionReason,
  HealthSignalKind,
  LimitName,
} from "./events.ts";
export {
  finalAnswerPrompt,
  limitOfReportPrompt,
  limitPhrase,
  LIMITS,
  type RunLimits,
} from "./limits.ts";
export type {
  AnyTool,
  Tool,
  ToolContext,
  ToolKind,
  ToolLocation,
  ToolOutput,
  ToolUpdate,
} from "./tool.ts";
export type {
  AfterToolCall,
  AfterToolCallContext,
  AfterToolCallUpdate,
  OnToolCall,
  PolicyDecision,
  ToolCallGate,
  ToolCallInfo,
  ToolCallRewrite,
} from "./hooks.ts";
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
export {
  type ContextKeeper,
  type ContextState,
  type ContextWindowSource,
  createContextKeeper,
  createContextState,
  type FitResult,
  requestBudget,
} from "./compaction/keeper.ts";
export { estimateMessagesTokens, estimateTextTokens } from "./compaction/estimate.ts";
export { isPrunedResult, type PrunedDetails } from "./compaction/prune.ts";
export {
  type CompactionMark,
  isSummaryMessage,
  SUMMARY_INSTRUCTIONS,
} from "./compaction/summary.ts";
