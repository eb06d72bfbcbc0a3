/**
 * PreToolUse and PostToolUse as layers of the agent's onToolCall and afterToolCall. PreToolUse
 * runs before the policy and can only narrow: a block ends the call; a rewrite is validated
 * again and checked by the same policy, so no hook can widen what the grants allow.
 */
import type {
  AfterToolCall,
  AfterToolCallUpdate,
  OnToolCall,
  PolicyDecision,
  ToolCallGate,
} from "../agent/hooks.ts";
import type { ContentBlock } from "../model/types.ts";
import type { Hooks } from "./mod.ts";

/** Who refused, in the result the model sees ("blocked by a PreToolUse hook: …"). */
const PRE_SOURCE = "a PreToolUse hook";

function blocked(reason: string): PolicyDecision {
  return { block: true, reason, source: PRE_SOURCE };
}

/** onToolCall: the PreToolUse hooks, then `policy` (for the original or the rewritten call). */
export function withPreToolUse(hooks: Hooks, policy: OnToolCall): ToolCallGate {
  return async (call) => {
    if (!hooks.has("PreToolUse", call.name)) return policy(call);
    const verdict = await hooks.run("PreToolUse", {
      tool_name: call.name,
      tool_input: call.args,
      tool_use_id: call.toolCallId,
    }, { toolName: call.name, toolCallId: call.toolCallId, signal: call.signal });
    if (verdict.stop !== undefined) return { ...blocked(verdict.stop.reason), terminate: true };
    if (verdict.block !== undefined) return blocked(verdict.block.reason);
    const updated = verdict.updatedInput;
    if (updated === undefined) return policy(call);
    const again = call.recheck?.(updated);
    if (again === undefined) return blocked("its rewrite of the call cannot be checked here");
    if (!again.ok) return blocked(`its rewrite of the call is not valid: ${again.error}`);
    const decision = await policy({ ...call, args: again.args });
    if (decision?.block === true) return decision;
    return { block: false, args: updated };
  };
}

function textOf(content: ContentBlock[] | string): string {
  if (typeof content === "string") return content;
  return content.flatMap((b) => b.type === "text" ? [b.text] : []).join("\n");
}

function appended(content: ContentBlock[] | string, text: string): ContentBlock[] | string {
  if (typeof content === "string") return content === "" ? text : `${content}\n\n${text}`;
  return [...content, { type: "text", text }];
}

/**
 * afterToolCall: `inner` (e.g. the final-answer check), then the PostToolUse hooks. A block marks
 * the result as an error with the reason; additionalContext is appended for the model.
 */
export function withPostToolUse(hooks: Hooks, inner?: AfterToolCall): AfterToolCall {
  return async (ctx) => {
    const first = await inner?.(ctx);
    if (!hooks.has("PostToolUse", ctx.call.name)) return first;
    let content = first?.content ?? ctx.result.content;
    const isError = first?.isError ?? ctx.result.isError;
    const verdict = await hooks.run("PostToolUse", {
      tool_name: ctx.call.name,
      tool_input: ctx.call.args,
      tool_use_id: ctx.call.toolCallId,
      tool_response: { output: textOf(content), is_error: isError },
    }, { toolName: ctx.call.name, toolCallId: ctx.call.toolCallId });
    if (verdict.block === undefined && verdict.context.length === 0) return first;
    const update: AfterToolCallUpdate = { ...first };
    for (const text of verdict.context) content = appended(content, text);
    if (verdict.block !== undefined) {
      content = appended(
        content,
        `A PostToolUse hook flagged this result: ${verdict.block.reason}`,
      );
      update.isError = true;
    }
    // `continue: false`: the run ends after this batch.
    if (verdict.stop !== undefined) update.terminate = true;
    update.content = content;
    return update;
  };
}
