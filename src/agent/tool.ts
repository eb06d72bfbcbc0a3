/**
 * The tool contract the agent core calls: tools are plain objects built by factories, and any
 * object of this shape can be handed to `runAgentLoop`.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import type { ContentBlock, ToolCallBlock, ToolResult, ToolSpec } from "../model/types.ts";

/** What kind of effect a tool has; the policy and the scheduler use it. */
export type ToolKind = "read" | "write" | "execute";

/**
 * Something a call will touch, resolved to a real path (symlinks followed, nearest existing parent
 * for new files) or a program name. The permission policy asks Deno's engine about each one.
 */
export type ToolLocation =
  | { access: "read"; path: string }
  | { access: "write"; path: string }
  | { access: "run"; program: string }
  | { access: "net"; host: string };

/** A live progress update from a running tool (events only; never stored in history). */
export interface ToolUpdate {
  /** The current tail of output, or a status line. */
  text: string;
  details?: unknown;
}

/** Per-call context handed to `execute`. */
export interface ToolContext {
  toolCallId: string;
  /** Progress sink; calls after `execute` settles are dropped. */
  onUpdate: (update: ToolUpdate) => void;
}

/**
 * What `execute` returns. `content ?? output` goes to history; `display` goes only to events
 * (e.g. an edit's diff); `details` is persistable structured data (e.g. `exitCode`).
 */
export interface ToolOutput {
  output: string;
  isError?: boolean;
  content?: ContentBlock[];
  display?: string;
  details?: unknown;
}

/**
 * A tool the model may call. `execute` should return failures as `{isError: true}` results;
 * a throw is caught by the pipeline and reported as a tool bug.
 */
export interface Tool<P extends TSchema = TSchema> {
  name: string;
  /** Short human label for UIs. */
  label?: string;
  /** Written for models: what it does, limits, and how to page or narrow results. */
  description: string;
  parameters: P;
  kind: ToolKind;
  /** True when calls may run in parallel with other concurrency-safe calls. */
  concurrencySafe?: boolean;
  /**
   * Callable but not offered: left out of the tool specs sent to the model (a tool found by a
   * search, e.g. MCP tool search, is offered again without it).
   */
  deferred?: boolean;
  /** Cap on result characters; tools without one get the generic `maxResultChars` cap. */
  maxResultChars?: number;
  /**
   * Checks the arguments instead of TypeBox, for a schema that is arbitrary JSON Schema (the
   * final answer's, an MCP tool's): the problems found, each "path: message"; empty when valid.
   * Must not throw.
   */
  validateArguments?(args: unknown): string[];
  /** Repairs known model quirks in raw arguments before validation; may throw. */
  prepareArguments?(raw: unknown): unknown;
  /** Real paths / programs / hosts the call will touch (validated arguments); may throw or reject. */
  locations?(args: Static<P>): ToolLocation[] | Promise<ToolLocation[]>;
  execute(args: Static<P>, signal: AbortSignal, ctx: ToolContext): Promise<ToolOutput>;
  /**
   * How the model gets a result back after compaction replaced it with a stub (e.g. the offset to
   * read again, the file the full output was saved in); one sentence. Must not throw.
   */
  prunedHint?(args: Static<P>, result: ToolResult): string | undefined;
}

/** A tool of any parameter schema (what registries and the loop hold). */
// deno-lint-ignore no-explicit-any
export type AnyTool = Tool<any>;

/** What a model is told about each tool offered (not deferred): name, description, parameters. */
export function toolSpecs(tools: readonly AnyTool[]): ToolSpec[] {
  return tools.filter((t) => t.deferred !== true).map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.parameters,
  }));
}

/** The tool's prunedHint for a call (undefined without one, or when it throws). */
export function prunedHintOf(
  tools: readonly AnyTool[],
  call: ToolCallBlock,
  result: ToolResult,
): string | undefined {
  try {
    return tools.find((t) => t.name === call.name)?.prunedHint?.(call.arguments, result);
  } catch {
    return undefined;
  }
}
