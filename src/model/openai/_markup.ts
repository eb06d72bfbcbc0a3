/**
 * Tool calls a server returned as text because it parses none (vLLM without
 * `--enable-auto-tool-choice`, llama.cpp without `--jinja`, an Ollama model without a tools
 * template): the common markups — Hermes/Qwen `<tool_call>{…}</tool_call>`, Llama
 * `<|python_tag|>{…}`, Mistral `[TOOL_CALLS][{…}]` (and `[TOOL_CALLS]name[ARGS]{…}`), a ```json
 * block — become real tool calls when every call names an offered tool; the text around them stays.
 */
import type { AssistantMessage, ToolCallBlock } from "../types.ts";

/** Which markup the calls came in (names the server setting that parses it). */
export type CallMarkup = "hermes" | "llama" | "mistral" | "json";

/** Calls found in a reply's text, and the text that is left. */
export interface TextCalls {
  markup: CallMarkup;
  calls: Array<{ name: string; arguments: unknown }>;
  text: string;
}

/** Reads one JSON value that starts at `start` (after blanks); undefined when there is none. */
function readJson(text: string, start: number): { value: unknown; end: number } | undefined {
  let i = start;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  const open = text[i];
  if (open !== "{" && open !== "[") return undefined;
  let depth = 0;
  let inString = false;
  for (let j = i; j < text.length; j++) {
    const ch = text[j]!;
    if (inString) {
      if (ch === "\\") j++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      if (--depth === 0) {
        try {
          return { value: JSON.parse(text.slice(i, j + 1)), end: j + 1 };
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{name, arguments|parameters}` (arguments as an object or a JSON string) as a call. */
function asCall(value: unknown): { name: string; arguments: unknown } | undefined {
  if (!isRecord(value)) return undefined;
  const fn = isRecord(value.function) ? value.function : value;
  if (typeof fn.name !== "string" || fn.name === "") return undefined;
  let args = fn.arguments ?? fn.parameters ?? {};
  if (typeof args === "string") {
    try {
      args = args.trim() === "" ? {} : JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  return isRecord(args) ? { name: fn.name, arguments: args } : undefined;
}

function asCalls(value: unknown): Array<{ name: string; arguments: unknown }> | undefined {
  const list = Array.isArray(value) ? value : [value];
  const calls = list.map(asCall);
  if (calls.length === 0 || calls.some((c) => c === undefined)) return undefined;
  return calls as Array<{ name: string; arguments: unknown }>;
}

type Found = { calls: Array<{ name: string; arguments: unknown }>; text: string } | undefined;

function hermes(text: string): Found {
  const calls: Array<{ name: string; arguments: unknown }> = [];
  let rest = "";
  let at = 0;
  for (;;) {
    const open = text.indexOf("<tool_call>", at);
    if (open === -1) break;
    const json = readJson(text, open + "<tool_call>".length);
    const parsed = json === undefined ? undefined : asCalls(json.value);
    if (json === undefined || parsed === undefined) return undefined;
    calls.push(...parsed);
    rest += text.slice(at, open);
    at = json.end;
    const close = /^\s*<\/tool_call>/.exec(text.slice(at));
    if (close !== null) at += close[0].length;
  }
  return calls.length === 0 ? undefined : { calls, text: rest + text.slice(at) };
}

function llama(text: string): Found {
  const tag = text.indexOf("<|python_tag|>");
  if (tag === -1) return undefined;
  const calls: Array<{ name: string; arguments: unknown }> = [];
  let at = tag + "<|python_tag|>".length;
  for (;;) {
    const json = readJson(text, at);
    const parsed = json === undefined ? undefined : asCalls(json.value);
    if (json === undefined || parsed === undefined) break;
    calls.push(...parsed);
    at = json.end;
    const sep = /^\s*;/.exec(text.slice(at));
    if (sep === null) break;
    at += sep[0].length;
  }
  if (calls.length === 0) return undefined;
  const tail = text.slice(at).replace(/^\s*<\|(eom_id|eot_id)\|>/, "");
  return { calls, text: text.slice(0, tag) + tail };
}

function mistral(text: string): Found {
  const tag = text.indexOf("[TOOL_CALLS]");
  if (tag === -1) return undefined;
  const after = tag + "[TOOL_CALLS]".length;
  const json = readJson(text, after);
  if (json !== undefined) {
    const calls = asCalls(json.value);
    return calls === undefined
      ? undefined
      : { calls, text: text.slice(0, tag) + text.slice(json.end) };
  }
  // Newer templates: [TOOL_CALLS]name[ARGS]{…}, repeated.
  const calls: Array<{ name: string; arguments: unknown }> = [];
  let at = after;
  for (;;) {
    const m = /^\s*(?:\[TOOL_CALLS\])?\s*([A-Za-z0-9_.:-]+)\[ARGS\]/.exec(text.slice(at));
    if (m === null) break;
    const args = readJson(text, at + m[0].length);
    if (args === undefined || !isRecord(args.value)) return undefined;
    calls.push({ name: m[1]!, arguments: args.value });
    at = args.end;
  }
  return calls.length === 0 ? undefined : { calls, text: text.slice(0, tag) + text.slice(at) };
}

function jsonBlock(text: string): Found {
  const fence = /```(?:json)?[ \t]*\n([\s\S]*?)\n?```/g;
  const calls: Array<{ name: string; arguments: unknown }> = [];
  let rest = "";
  let at = 0;
  for (const m of text.matchAll(fence)) {
    const body = m[1]!.trim();
    const json = readJson(body, 0);
    if (json === undefined || body.slice(json.end).trim() !== "") continue;
    const parsed = asCalls(json.value);
    // A block that is data rather than a call is left as it is.
    if (parsed === undefined) continue;
    calls.push(...parsed);
    rest += text.slice(at, m.index);
    at = m.index! + m[0].length;
  }
  return calls.length === 0 ? undefined : { calls, text: rest + text.slice(at) };
}

/**
 * The tool calls written in `text` in one of the known markups, when every one names a tool in
 * `offered` (else undefined: the text stays text). A ```json block counts only when it holds
 * nothing but calls.
 */
export function findTextCalls(text: string, offered: ReadonlySet<string>): TextCalls | undefined {
  const finders: Array<[CallMarkup, (t: string) => Found]> = [
    ["hermes", hermes],
    ["llama", llama],
    ["mistral", mistral],
    ["json", jsonBlock],
  ];
  for (const [markup, find] of finders) {
    const found = find(text);
    if (found === undefined) continue;
    if (!found.calls.every((c) => offered.has(c.name))) return undefined;
    return { markup, calls: found.calls, text: found.text.trim() };
  }
  return undefined;
}

/** How the warning names each markup. */
export const MARKUP_NAMES: Record<CallMarkup, string> = {
  hermes: "`<tool_call>` markup",
  llama: "`<|python_tag|>` markup",
  mistral: "`[TOOL_CALLS]` markup",
  json: "a ```json block",
};

/** Where a markup starts in streamed text (what the stream holds back until the reply ends). */
export const MARKUP_STARTS = ["<tool_call>", "<|python_tag|>", "[TOOL_CALLS]", "```json"];

/** The server setting that makes it parse calls in `markup` itself. */
export function parserHint(markup: CallMarkup): string {
  const parser = markup === "llama" ? "llama3_json" : markup === "mistral" ? "mistral" : "hermes";
  return `start vLLM with \`--enable-auto-tool-choice --tool-call-parser ${parser}\`, ` +
    "llama.cpp's llama-server with `--jinja`, or use an Ollama model whose template supports tools";
}

/**
 * `message` with the calls written in its text made real tool calls (ids from `makeId(i)`), or
 * undefined when it already has calls or its text holds none for an offered tool.
 */
export function recoverTextCalls(
  message: AssistantMessage,
  offered: ReadonlySet<string>,
  makeId: (i: number) => string,
): { message: AssistantMessage; markup: CallMarkup } | undefined {
  if (offered.size === 0 || message.blocks.some((b) => b.type === "toolCall")) return undefined;
  const text = message.blocks.map((b) => b.type === "text" ? b.text : "").join("");
  const found = findTextCalls(text, offered);
  if (found === undefined) return undefined;
  const calls = found.calls.map((c, i): ToolCallBlock => ({
    type: "toolCall",
    id: makeId(i),
    name: c.name,
    arguments: c.arguments,
  }));
  const blocks: AssistantMessage["blocks"] = found.text === ""
    ? calls
    : [{ type: "text", text: found.text }, ...calls];
  const stopReason = message.stopReason === "stop" ? "toolUse" : message.stopReason;
  return { message: { ...message, blocks, stopReason }, markup: found.markup };
}
