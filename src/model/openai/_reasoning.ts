/**
 * Reasoning in a Chat Completions stream, however the server sends it: `reasoning_content`
 * (DeepSeek, llama.cpp, DashScope, vLLM before 0.11), `reasoning` (vLLM, Ollama, OpenRouter),
 * `reasoning_details` (OpenRouter) or `<think>…</think>` at the start of the content. It is kept
 * apart from the answer text; what a server needs back (DeepSeek's `reasoning_content`,
 * OpenRouter's `reasoning_details`, Gemini's per-call `extra_content`) is kept verbatim as an echo
 * that `addReplayFields` puts on the next requests to the same server only.
 */
import type OpenAI from "openai";
import type { AssistantMessage, ModelStreamEvent, ProviderEcho } from "../types.ts";

const OPEN_TAG = "<think>";
const CLOSE_TAG = "</think>";

/** Splits `<think>…</think>` off the start of the content, also when split across chunks. */
class ThinkTagSplitter {
  #state: "start" | "inside" | "after" | "plain" = "start";
  #held = "";

  /** The content piece → its thinking and answer parts (a possible partial tag is held back). */
  add(piece: string): { thinking: string; text: string } {
    if (this.#state === "plain") return { thinking: "", text: piece };
    this.#held += piece;
    if (this.#state === "start") {
      const lead = this.#held.trimStart();
      if (lead.length < OPEN_TAG.length && OPEN_TAG.startsWith(lead)) return none();
      if (!lead.startsWith(OPEN_TAG)) return this.#release("plain");
      this.#held = lead.slice(OPEN_TAG.length);
      this.#state = "inside";
    }
    if (this.#state === "inside") {
      const end = this.#held.indexOf(CLOSE_TAG);
      if (end === -1) {
        const keep = partialSuffix(this.#held, CLOSE_TAG);
        const thinking = this.#held.slice(0, this.#held.length - keep);
        this.#held = this.#held.slice(this.#held.length - keep);
        return { thinking, text: "" };
      }
      const thinking = this.#held.slice(0, end);
      this.#held = this.#held.slice(end + CLOSE_TAG.length);
      this.#state = "after";
      return { thinking, text: this.#afterText() };
    }
    return { thinking: "", text: this.#afterText() };
  }

  /** What is still held at the end of the stream (an unclosed `<think>` counts as thinking). */
  flush(): { thinking: string; text: string } {
    const held = this.#held;
    this.#held = "";
    if (this.#state === "inside") return { thinking: held, text: "" };
    return { thinking: "", text: this.#state === "after" ? held.trimStart() : held };
  }

  /** The answer after `</think>`, without the blank lines that separate it. */
  #afterText(): string {
    const text = this.#held.trimStart();
    if (text === "") return "";
    this.#held = "";
    this.#state = "plain";
    return text;
  }

  #release(state: "plain"): { thinking: string; text: string } {
    const text = this.#held;
    this.#held = "";
    this.#state = state;
    return { thinking: "", text };
  }
}

function none(): { thinking: string; text: string } {
  return { thinking: "", text: "" };
}

/** Length of the longest end of `text` that is a proper start of `tag`. */
function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (tag.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}

type Detail = Record<string, unknown>;

/** The readable text of one `reasoning_details` entry (encrypted entries have none). */
function detailText(detail: Detail): string {
  if (typeof detail.text === "string") return detail.text;
  if (typeof detail.summary === "string") return detail.summary;
  return "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * One reply's reasoning: `content` takes each delta (and its content text) and returns the answer
 * text in it, emitting `thinking_delta`s; `toolCall` notes a call's echo fields; `flush` returns
 * held-back answer text at the end; `finish` puts thinking and echoes on the message.
 */
export class ReasoningReader {
  #thinking = "";
  #reasoningContent: string | undefined;
  #details: Detail[] = [];
  #callFields = new Map<number, Record<string, unknown>>();
  #tags = new ThinkTagSplitter();

  /** `emit` must not throw. */
  constructor(readonly emit: (e: ModelStreamEvent) => void) {}

  /** The delta's reasoning is emitted; returns the answer part of `text` (its content). */
  content(delta: OpenAI.Chat.ChatCompletionChunk.Choice.Delta, text: string): string {
    const raw = delta as Record<string, unknown>;
    let thinking = "";
    if (typeof raw.reasoning_content === "string") {
      this.#reasoningContent = (this.#reasoningContent ?? "") + raw.reasoning_content;
      thinking = raw.reasoning_content;
    } else if (typeof raw.reasoning === "string") thinking = raw.reasoning;
    const details = Array.isArray(raw.reasoning_details) ? raw.reasoning_details : [];
    let detailsText = "";
    for (const detail of details) {
      if (!isRecord(detail)) continue;
      this.#addDetail(detail);
      detailsText += detailText(detail);
    }
    // OpenRouter sends `reasoning` and `reasoning_details` together: the text counts once.
    if (thinking === "") thinking = detailsText;
    this.#think(thinking);
    if (text === "") return "";
    const split = this.#tags.add(text);
    this.#think(split.thinking);
    return split.text;
  }

  /** Keeps the fields of a streamed tool call (at its assembled `index`) that must be echoed. */
  toolCall(index: number, toolCall: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const extra = (toolCall as { extra_content?: unknown }).extra_content;
    if (extra !== undefined && extra !== null) {
      this.#callFields.set(index, { ...this.#callFields.get(index), extra_content: extra });
    }
  }

  /** Answer text still held back (a content that was only the start of `<think>`). */
  flush(): string {
    const rest = this.#tags.flush();
    this.#think(rest.thinking);
    return rest.text;
  }

  /**
   * Puts the thinking and the fields to echo on `message`; `callIndexes[i]` is the assembled
   * index of the i-th tool call block. Echoes get `origin` ("" until the client stamps it).
   */
  finish(message: AssistantMessage, callIndexes: readonly number[]): void {
    if (this.#thinking.trim() !== "") message.thinking = this.#thinking;
    const fields: Record<string, unknown> = {};
    if (this.#reasoningContent !== undefined) fields.reasoning_content = this.#reasoningContent;
    if (this.#details.length > 0) fields.reasoning_details = this.#details;
    if (Object.keys(fields).length > 0) message.echo = { origin: "", fields };
    let n = 0;
    for (const block of message.blocks) {
      if (block.type !== "toolCall") continue;
      const callFields = this.#callFields.get(callIndexes[n++] ?? -1);
      if (callFields !== undefined) block.echo = { origin: "", fields: callFields };
    }
  }

  #think(piece: string): void {
    if (piece === "") return;
    this.#thinking += piece;
    this.emit({ type: "thinking_delta", delta: piece });
  }

  /** Streamed entries with the same `index` are pieces of one entry: their texts are joined. */
  #addDetail(detail: Detail): void {
    const last = this.#details.at(-1);
    const same = last !== undefined && detail.index !== undefined && last.index === detail.index &&
      last.type === detail.type;
    if (!same) {
      this.#details.push({ ...detail });
      return;
    }
    for (const [key, value] of Object.entries(detail)) {
      const before = last[key];
      last[key] = (key === "text" || key === "summary" || key === "data") &&
          typeof before === "string" && typeof value === "string"
        ? before + value
        : value;
    }
  }
}

/** Sets the origin of every echo on `message` (the server that sent them). */
export function stampOrigin(message: AssistantMessage, origin: string): void {
  const stamp = (echo: ProviderEcho | undefined) => {
    if (echo !== undefined) echo.origin = origin;
  };
  stamp(message.echo);
  for (const block of message.blocks) if (block.type === "toolCall") stamp(block.echo);
}

/** The settings that decide which echoes go back (see `OpenAiClientOptions`). */
export interface ReplaySettings {
  baseURL?: string;
  echoReasoningContent?: boolean;
}

/** Whether `reasoning_content` goes back by default: DeepSeek's own API requires it. */
function deepseekDefault(baseURL: string): boolean {
  try {
    const host = new URL(baseURL).hostname;
    return host === "api.deepseek.com" || host.endsWith(".deepseek.com");
  } catch {
    return false;
  }
}

function sameServer(a: string, b: string): boolean {
  return a !== "" && a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
}

type WireAssistant = OpenAI.Chat.ChatCompletionAssistantMessageParam & Record<string, unknown>;

/**
 * Puts the echoes of `history`'s assistant messages on their wire messages (`wire`, in which each
 * assistant message became exactly one `assistant` message, its calls in order): only echoes that
 * came from `settings.baseURL`, and message-level ones only on tool-call turns —
 * `reasoning_details` always, `reasoning_content` when `echoReasoningContent` (default: the base
 * URL is DeepSeek's). Every other server gets no unknown fields.
 */
export function addReplayFields(
  wire: OpenAI.Chat.ChatCompletionMessageParam[],
  history: readonly { role: string }[],
  settings: ReplaySettings,
): void {
  const baseURL = settings.baseURL;
  if (baseURL === undefined) return;
  const echoContent = settings.echoReasoningContent ?? deepseekDefault(baseURL);
  const assistants = history.filter((m): m is AssistantMessage => m.role === "assistant");
  const wires = wire.filter((m): m is WireAssistant => m.role === "assistant");
  for (let i = 0; i < assistants.length && i < wires.length; i++) {
    const message = assistants[i]!;
    const out = wires[i]!;
    const calls = message.blocks.filter((b) => b.type === "toolCall");
    const echo = message.echo;
    if (echo !== undefined && calls.length > 0 && sameServer(echo.origin, baseURL)) {
      if (echo.fields.reasoning_details !== undefined) {
        out.reasoning_details = echo.fields.reasoning_details;
      }
      if (echoContent && typeof echo.fields.reasoning_content === "string") {
        out.reasoning_content = echo.fields.reasoning_content;
      }
    }
    const wireCalls = out.tool_calls ?? [];
    for (let c = 0; c < calls.length && c < wireCalls.length; c++) {
      const callEcho = calls[c]!.echo;
      if (callEcho === undefined || !sameServer(callEcho.origin, baseURL)) continue;
      Object.assign(wireCalls[c]!, callEcho.fields);
    }
  }
}
