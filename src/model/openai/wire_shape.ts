/**
 * Reshaping wire messages for servers with strict chat templates or id rules: tool-call ids as
 * 9 alphanumerics derived from the original (Mistral), strictly alternating roles (llama.cpp GGUF
 * templates, Mistral/Devstral), and JSON-schema keywords some servers reject (Gemini).
 */
import type OpenAI from "openai";

type WireMessage = OpenAI.Chat.ChatCompletionMessageParam;
type WireUserPart = OpenAI.Chat.ChatCompletionContentPart;

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** 9 alphanumerics from `text` (FNV-1a, 64 bits), the same for the same text. */
function alnum9(text: string, salt: number): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(`${salt}:${text}`)) {
    hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  }
  let out = "";
  for (let i = 0; i < 9; i++) {
    out += ALNUM[Number(hash % 62n)];
    hash /= 62n;
  }
  return out;
}

/**
 * Mistral's rule, "Tool call id was X but must be a-z, A-Z, 0-9, with a length of 9": every id in
 * `tool_calls[].id` and `tool_call_id` replaced by one derived from it (ids that already fit are
 * kept), distinct ids staying distinct within the request. Returns new messages.
 */
export function normalizeToolCallIds(messages: readonly WireMessage[]): WireMessage[] {
  const mapped = new Map<string, string>();
  const used = new Set<string>();
  const idFor = (id: string): string => {
    const known = mapped.get(id);
    if (known !== undefined) return known;
    let next = /^[A-Za-z0-9]{9}$/.test(id) ? id : alnum9(id, 0);
    for (let salt = 1; used.has(next); salt++) next = alnum9(id, salt);
    mapped.set(id, next);
    used.add(next);
    return next;
  };
  return messages.map((m) => {
    if (m.role === "assistant" && m.tool_calls !== undefined) {
      return { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, id: idFor(c.id) })) };
    }
    if (m.role === "tool") return { ...m, tool_call_id: idFor(m.tool_call_id) };
    return m;
  });
}

function userParts(content: OpenAI.Chat.ChatCompletionUserMessageParam["content"]): WireUserPart[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : [...content];
}

function joinUser(
  a: OpenAI.Chat.ChatCompletionUserMessageParam["content"],
  b: OpenAI.Chat.ChatCompletionUserMessageParam["content"],
): OpenAI.Chat.ChatCompletionUserMessageParam["content"] {
  if (typeof a === "string" && typeof b === "string") return `${a}\n\n${b}`;
  return [...userParts(a), ...userParts(b)];
}

function assistantText(m: OpenAI.Chat.ChatCompletionAssistantMessageParam): string {
  const c = m.content;
  if (c === null || c === undefined) return "";
  return typeof c === "string" ? c : c.map((p) => ("text" in p ? p.text : "")).join("");
}

/** The assistant turn put between tool messages and a user message (an interrupted turn, or
 * images of a tool result) for strict templates. */
const TOOL_RESULTS_NOTE: WireMessage = {
  role: "assistant",
  content: "(Tool results received.)",
};

/**
 * Roles as strict templates take them ("Conversation roles must alternate user/assistant"): one
 * system message, first (later ones become user messages); consecutive user messages merged;
 * consecutive assistant messages merged (an interrupted turn followed by a new one); a user message
 * right after tool messages preceded by a short assistant note, as mistral-common refuses
 * "Unexpected role 'user' after role 'tool'".
 */
export function alternateRoles(messages: readonly WireMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const [i, original] of messages.entries()) {
    let m = original;
    if ((m.role === "system" || m.role === "developer") && i > 0) {
      m = {
        role: "user",
        content: typeof m.content === "string"
          ? m.content
          : m.content.map((p) => p.text).join("\n"),
      };
    }
    if (m.role === "user" && out.at(-1)?.role === "tool") out.push(TOOL_RESULTS_NOTE);
    const last = out.at(-1);
    if (m.role === "user" && last?.role === "user") {
      out[out.length - 1] = { role: "user", content: joinUser(last.content, m.content) };
      continue;
    }
    if (m.role === "assistant" && last?.role === "assistant" && last.tool_calls === undefined) {
      const text = [assistantText(last), assistantText(m)].filter((t) => t !== "").join("\n\n");
      out[out.length - 1] = { ...m, content: text === "" ? m.content ?? null : text };
      continue;
    }
    out.push(m);
  }
  return out;
}

/** `schema` without the keywords in `keys`, at any depth (property names are kept). */
export function stripSchemaKeys(schema: unknown, keys: readonly string[]): unknown {
  if (keys.length === 0) return schema;
  if (Array.isArray(schema)) return schema.map((s) => stripSchemaKeys(s, keys));
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (keys.includes(key)) continue;
    if (key === "properties" && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, stripSchemaKeys(sub, keys)]),
      );
    } else {
      out[key] = stripSchemaKeys(value, keys);
    }
  }
  return out;
}
