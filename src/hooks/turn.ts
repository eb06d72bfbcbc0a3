/** UserPromptSubmit and Stop: hooks around one prompt's run. */
import type { UserMessage } from "../model/types.ts";
import type { Hooks } from "./mod.ts";

function promptText(prompt: UserMessage): string {
  return typeof prompt.content === "string"
    ? prompt.content
    : prompt.content.flatMap((b) => b.type === "text" ? [b.text] : []).join("\n");
}

/**
 * Runs the UserPromptSubmit hooks: the prompt to send (with `context` and the hooks' additional
 * context appended), or why a hook blocked it.
 */
export async function submitPrompt(
  hooks: Hooks,
  prompt: UserMessage,
  options: { signal?: AbortSignal; context?: readonly string[] } = {},
): Promise<{ ok: true; prompt: UserMessage } | { ok: false; reason: string }> {
  const contexts = [...options.context ?? []];
  if (hooks.has("UserPromptSubmit")) {
    const verdict = await hooks.run(
      "UserPromptSubmit",
      { prompt: promptText(prompt) },
      options.signal === undefined ? {} : { signal: options.signal },
    );
    if (verdict.block !== undefined) return { ok: false, reason: verdict.block.reason };
    contexts.push(...verdict.context);
  }
  if (contexts.length === 0) return { ok: true, prompt };
  const extra = contexts.join("\n\n");
  const content = typeof prompt.content === "string"
    ? `${prompt.content}\n\n${extra}`
    : [...prompt.content, { type: "text" as const, text: extra }];
  return { ok: true, prompt: { ...prompt, content } };
}

/**
 * Runs the Stop hooks after a completed run: the reason to send the model back to work, or
 * undefined to stop. `active` is true when a Stop hook already sent it back for this prompt
 * (`stop_hook_active`); then moat stops whatever the hooks say, so a hook cannot loop.
 */
export async function stopHookReason(
  hooks: Hooks,
  options: { active: boolean; lastText: string; signal?: AbortSignal },
): Promise<string | undefined> {
  if (!hooks.has("Stop")) return undefined;
  const verdict = await hooks.run(
    "Stop",
    { stop_hook_active: options.active, last_assistant_message: options.lastText },
    options.signal === undefined ? {} : { signal: options.signal },
  );
  // `continue: false` stops: it never sends the model back.
  if (options.active || verdict.stop !== undefined) return undefined;
  return verdict.block?.reason;
}

/** Runs the SessionStart hooks: what they add to the model's context (plain stdout counts). */
export async function startSession(
  hooks: Hooks,
  source: "startup" | "resume",
  signal?: AbortSignal,
): Promise<string[]> {
  if (!hooks.has("SessionStart")) return [];
  const verdict = await hooks.run(
    "SessionStart",
    { source },
    signal === undefined ? {} : { signal },
  );
  return verdict.context;
}

/**
 * Runs the PermissionRequest hooks for an access the grants leave open: deny with a reason,
 * allow for the rest of the run (only the user's own hooks can), or no answer.
 */
export async function permissionAnswer(
  hooks: Hooks,
  request: {
    toolName: string;
    toolCallId: string;
    args: unknown;
    question: string;
    location?: { access: string };
    target?: string;
  },
): Promise<{ decision: "deny"; reason: string } | { decision: "always" } | undefined> {
  if (!hooks.has("PermissionRequest", request.toolName)) return undefined;
  const verdict = await hooks.run("PermissionRequest", {
    tool_name: request.toolName,
    tool_input: request.args,
    tool_use_id: request.toolCallId,
    permission: { access: request.location?.access ?? null, target: request.target ?? null },
    question: request.question,
  }, { toolName: request.toolName, toolCallId: request.toolCallId });
  if (verdict.block !== undefined) return { decision: "deny", reason: verdict.block.reason };
  return verdict.allow ? { decision: "always" } : undefined;
}
