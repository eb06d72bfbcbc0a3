/**
 * The per-call pipeline: lookup → argument checks → prepareArguments → TypeBox validation →
 * policy (onToolCall) → execute → afterToolCall. Nothing escapes as an exception: every failure
 * becomes an error result the model can act on.
 */
import { Value } from "@sinclair/typebox/value";
import type { ToolCallBlock, ToolResult } from "../model/types.ts";
import type { AfterToolCall, ToolCallGate } from "./hooks.ts";
import { capContent } from "./result_cap.ts";
import type { AnyTool, ToolOutput, ToolUpdate } from "./tool.ts";

/** How many validation errors are quoted back to the model. */
const MAX_VALIDATION_ERRORS = 5;
/** How much of unparseable arguments is quoted back to the model. */
const INVALID_JSON_PREFIX_CHARS = 120;

/** The outcome of one call before it is stored: the result plus UI-only extras. */
export interface CallRecord {
  /** What goes to history (already persistable). */
  result: ToolResult;
  /** UI-only rendering from the tool (e.g. a diff); never stored or sent to the model. */
  display?: string;
  /** Set when the policy refused the call. */
  blocked?: { source: string; reason: string };
  /** The after-hook asked to end the run after this batch. */
  terminate?: boolean;
  /** True when `execute` was called. */
  executed: boolean;
}

/** What the pipeline needs from the run. */
export interface PipelineContext {
  tools: ReadonlyMap<string, AnyTool>;
  signal: AbortSignal;
  /** Generic cap for tools without `maxResultChars`. */
  maxResultChars: number;
  onToolCall?: ToolCallGate;
  afterToolCall?: AfterToolCall;
  /** Why a tool not offered is missing, when known (AgentOptions.unknownToolReason). */
  unknownToolReason?: (name: string) => string | undefined;
}

/** A call after lookup, checks, validation and policy: either ready to run or already decided. */
export type PreparedCall =
  | {
    kind: "ready";
    call: ToolCallBlock;
    tool: AnyTool;
    args: unknown;
    /** Real paths a write-kind tool will mutate (for the per-path mutation queue). */
    writePaths: string[];
  }
  | { kind: "done"; record: CallRecord };

/** The message of anything thrown; never throws itself (tools may throw odd values). */
export function errorMessage(e: unknown): string {
  try {
    return e instanceof Error ? String(e.message) : String(e);
  } catch {
    // e.g. `throw Object.create(null)`, or a `message` getter that throws.
    return "a value that cannot be printed";
  }
}

/** An error result for a call. */
export function errorResult(call: ToolCallBlock, text: string): ToolResult {
  return { toolCallId: call.id, toolName: call.name, content: text, isError: true };
}

/** Strips UI-only fields (display, durationMs, …) so only what history needs is stored. */
export function persistableResult(
  result: ToolResult & { display?: string | undefined; durationMs?: number | undefined },
): ToolResult {
  const stored: ToolResult = {
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    content: result.content,
    isError: result.isError,
  };
  if (result.details !== undefined) stored.details = result.details;
  return stored;
}

function describeJsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return "a string";
  return `a ${typeof value}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function notExecuted(call: ToolCallBlock, text: string): PreparedCall {
  return { kind: "done", record: { result: errorResult(call, text), executed: false } };
}

/** Prepares and validates a call's arguments: the prepared arguments, or the error text. */
function checkArguments(
  name: string,
  tool: AnyTool,
  raw: unknown,
): { ok: true; args: unknown } | { ok: false; error: string } {
  const fail = (error: string) => ({ ok: false as const, error });
  if (!isPlainObject(raw)) {
    return fail(
      `Error: the arguments of tool "${name}" must be a JSON object, got ${describeJsonKind(raw)}.`,
    );
  }
  let args: unknown = raw;
  if (tool.prepareArguments !== undefined) {
    try {
      args = tool.prepareArguments(args);
    } catch (e) {
      return fail(
        `Error: could not prepare the arguments of tool "${name}": ${errorMessage(e)}. ` +
          "Fix the arguments and retry.",
      );
    }
  }

  if (tool.validateArguments !== undefined) {
    const problems = tool.validateArguments(args).slice(0, MAX_VALIDATION_ERRORS);
    if (problems.length > 0) {
      return fail(
        `Error: invalid arguments for tool "${name}": ${problems.join("; ")}. ` +
          "Fix the arguments and retry.",
      );
    }
  } else {
    try {
      if (!Value.Check(tool.parameters, args)) {
        const problems: string[] = [];
        for (const error of Value.Errors(tool.parameters, args)) {
          problems.push(`${error.path === "" ? "/" : error.path}: ${error.message}`);
          if (problems.length >= MAX_VALIDATION_ERRORS) break;
        }
        return fail(
          `Error: invalid arguments for tool "${name}": ${problems.join("; ")}. ` +
            "Fix the arguments and retry.",
        );
      }
    } catch (e) {
      // A schema TypeBox cannot check is a tool bug; refuse rather than run unchecked.
      return fail(
        `Error: could not validate the arguments of tool "${name}": ${errorMessage(e)}`,
      );
    }
  }

  return { ok: true, args };
}

/**
 * Runs every step before execution for one call, in order; never throws. A refused call comes
 * back as `done` with its error result.
 */
export async function prepareToolCall(
  call: ToolCallBlock,
  ctx: PipelineContext,
): Promise<PreparedCall> {
  const tool = ctx.tools.get(call.name);
  if (tool === undefined) {
    const names = [...ctx.tools.values()].filter((t) => t.deferred !== true).map((t) => t.name);
    const available = names.length > 0
      ? `Available tools: ${names.join(", ")}.`
      : "No tools are available in this session.";
    const reason = ctx.unknownToolReason?.(call.name);
    return notExecuted(
      call,
      reason === undefined
        ? `Error: unknown tool "${call.name}". ${available}`
        : `Error: tool "${call.name}" is not available: ${reason}. ${available}`,
    );
  }

  if (call.invalidJson !== undefined) {
    const raw = typeof call.arguments === "string" ? call.arguments : String(call.arguments);
    const prefix = raw.length > INVALID_JSON_PREFIX_CHARS
      ? `${raw.slice(0, INVALID_JSON_PREFIX_CHARS)}…`
      : raw;
    return notExecuted(
      call,
      `Error: tool "${call.name}" arguments are not valid JSON: ${JSON.stringify(prefix)} ` +
        `(${call.invalidJson}). Send the arguments as one complete JSON object.`,
    );
  }
  if (!isPlainObject(call.arguments)) {
    return notExecuted(
      call,
      `Error: the arguments of tool "${call.name}" must be a JSON object, got ` +
        `${describeJsonKind(call.arguments)}. Send the arguments as one JSON object.`,
    );
  }

  const checked = checkArguments(call.name, tool, call.arguments);
  if (!checked.ok) return notExecuted(call, checked.error);
  let args = checked.args;

  if (ctx.onToolCall !== undefined) {
    let decision;
    try {
      decision = await ctx.onToolCall({
        toolCallId: call.id,
        name: call.name,
        args,
        tool,
        signal: ctx.signal,
        recheck: (other) => checkArguments(call.name, tool, other),
      });
    } catch (e) {
      return notExecuted(
        call,
        `Error: the policy check for tool "${call.name}" failed, so the call was not executed: ` +
          errorMessage(e),
      );
    }
    if (decision?.block === true) {
      return {
        kind: "done",
        record: {
          result: errorResult(
            call,
            `Tool "${call.name}" blocked by ${decision.source}: ${decision.reason}`,
          ),
          blocked: { source: decision.source, reason: decision.reason },
          executed: false,
          ...(decision.terminate === true ? { terminate: true } : {}),
        },
      };
    }
    if (decision?.block === false) {
      // A rewrite: never run arguments the tool's own checks have not seen.
      const again = checkArguments(call.name, tool, decision.args);
      if (!again.ok) return notExecuted(call, again.error);
      args = again.args;
    }
  }

  const writePaths: string[] = [];
  if (tool.kind === "write" && tool.locations !== undefined) {
    try {
      for (const location of await tool.locations(args)) {
        if (location.access === "write") writePaths.push(location.path);
      }
    } catch (e) {
      return notExecuted(
        call,
        `Error: could not resolve the paths tool "${call.name}" would change: ${errorMessage(e)}`,
      );
    }
  }

  return { kind: "ready", call, tool, args, writePaths };
}

function isToolOutput(value: unknown): value is ToolOutput {
  return isPlainObject(value) && (typeof value.output === "string" || Array.isArray(value.content));
}

/**
 * Executes a ready call and runs the after-hook; never throws. `onUpdate` receives progress only
 * until `execute` settles (later updates are dropped).
 */
export async function executePreparedCall(
  prepared: Extract<PreparedCall, { kind: "ready" }>,
  ctx: PipelineContext,
  onUpdate: (update: ToolUpdate) => void,
): Promise<CallRecord> {
  const { call, tool, args } = prepared;
  let open = true;
  const toolContext = {
    toolCallId: call.id,
    onUpdate: (update: ToolUpdate) => {
      if (open) onUpdate(update);
    },
  };

  let record: CallRecord;
  try {
    const output: unknown = await tool.execute(args, ctx.signal, toolContext);
    if (!isToolOutput(output)) {
      record = {
        result: errorResult(call, `Error: tool ${call.name} returned no usable result`),
        executed: true,
      };
    } else {
      const result: ToolResult = {
        toolCallId: call.id,
        toolName: call.name,
        content: capContent(
          output.content ?? output.output,
          tool.maxResultChars ?? ctx.maxResultChars,
        ),
        isError: output.isError === true,
      };
      if (output.details !== undefined) result.details = output.details;
      record = { result, executed: true };
      if (output.display !== undefined) record.display = output.display;
    }
  } catch (e) {
    record = {
      result: errorResult(call, `Error: tool ${call.name} threw: ${errorMessage(e)}`),
      executed: true,
    };
  } finally {
    open = false;
  }

  if (ctx.afterToolCall !== undefined) {
    try {
      const update = await ctx.afterToolCall({
        call: { toolCallId: call.id, name: call.name, args },
        result: record.result,
      });
      if (update !== undefined) {
        const result = { ...record.result };
        if (update.content !== undefined) result.content = update.content;
        if (update.isError !== undefined) result.isError = update.isError;
        record = { ...record, result };
        if (update.terminate === true) record.terminate = true;
      }
    } catch (e) {
      record = {
        ...record,
        result: errorResult(
          call,
          `Error: the afterToolCall hook failed for tool "${call.name}": ${errorMessage(e)}`,
        ),
      };
    }
  }
  return record;
}
