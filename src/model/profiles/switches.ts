/**
 * The request switches a server profile sets: which optional fields and message shapes a
 * Chat Completions request carries. Pure data; `table.ts` holds each server family's values.
 */

/** Where the output budget goes: OpenAI's newer field, the classic one, or nowhere. */
export type BudgetField = "max_completion_tokens" | "max_tokens" | "omit";

/** A boolean request field sent with this value, or left out of the request. */
export type SentOrOmitted = boolean | "omit";

/** Every switch of a request's shape; `CompatOverrides` is the config's partial form. */
export interface CompatSwitches {
  /** Role of the system prompt: `developer` only for OpenAI's own reasoning models. */
  systemRole: "system" | "developer";
  /** Send `stream_options: {include_usage: true}`. */
  streamOptions: boolean;
  /** `parallel_tool_calls` (only when tools are offered). */
  parallelToolCalls: SentOrOmitted;
  /** `store`. */
  store: SentOrOmitted;
  /** `strict` in each function definition. */
  strict: SentOrOmitted;
  /** The field of the output budget. */
  maxTokensField: BudgetField;
  /** The largest budget sent (learned from "too large" errors); 0 = no cap. */
  maxTokensCap: number;
  /** Tool-call ids as sent: kept, or 9 alphanumerics derived from the original (Mistral). */
  toolCallIds: "keep" | "alnum9";
  /** JSON-schema keywords removed from tool parameters, at any depth. */
  stripSchemaKeys: string[];
  /** Strict role alternation: system only first, no two user messages in a row. */
  alternateRoles: boolean;
  /** `content` of an assistant message that has tool calls and no text. */
  emptyToolContent: "null" | "empty";
  /** Whether the model accepts images; false sends a text placeholder for each (learned). */
  vision: boolean;
}

/** Overrides of some switches (the config's `compat`, a learned change). */
export type CompatOverrides = Partial<CompatSwitches>;

/** Every switch name, in the order `moat doctor` prints them. */
export const SWITCH_NAMES: readonly (keyof CompatSwitches)[] = [
  "systemRole",
  "streamOptions",
  "parallelToolCalls",
  "store",
  "strict",
  "maxTokensField",
  "maxTokensCap",
  "toolCallIds",
  "stripSchemaKeys",
  "alternateRoles",
  "emptyToolContent",
  "vision",
];

/**
 * The switches of a server nothing is known about: moat's long-standing request shape, which
 * OpenAI and most compatible servers accept; each field a server rejects is learned (learn.ts).
 */
export const DEFAULT_SWITCHES: CompatSwitches = {
  systemRole: "system",
  streamOptions: true,
  parallelToolCalls: "omit",
  store: "omit",
  strict: "omit",
  maxTokensField: "max_completion_tokens",
  maxTokensCap: 0,
  toolCallIds: "keep",
  stripSchemaKeys: [],
  alternateRoles: false,
  emptyToolContent: "null",
  vision: true,
};

/** A switch value as config JSON text (`moat doctor`, warnings). */
export function switchText(value: CompatSwitches[keyof CompatSwitches]): string {
  return JSON.stringify(value);
}
