/**
 * Chat Completions stream chunks assembled into one AssistantMessage, with the stream events
 * emitted as they arrive: text, tool calls however servers split, index or omit them, finish
 * reasons mapped to stop reasons, usage (with the servers' ways of reporting cache hits).
 */
import type OpenAI from "openai";
import {
  type AssistantMessage,
  emptyUsage,
  ModelError,
  type ModelStreamEvent,
  type StopReason,
  type ToolCallBlock,
  type Usage,
} from "../types.ts";
import { ReasoningReader } from "./_reasoning.ts";

interface PartialCall {
  index: number;
  /** The id announced and used in the message: the server's, or made up here, unique per reply. */
  id: string | undefined;
  /** The first id the server sent for this call (deltas are matched against it). */
  serverId: string | undefined;
  name: string;
  args: string;
  argsObject: unknown;
  started: boolean;
  pendingDeltas: string[];
}

/** FNV-1a, base 36: short stable ids for calls the server sent without one. */
export function hashText(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

/**
 * Collects one reply's chunks (`add`, emitting events as they arrive) into a message (`finish`,
 * which throws `incomplete_stream` when no finish reason arrived).
 */
export class ReplyAssembler {
  #text = "";
  #calls: PartialCall[] = [];
  #bySlot = new Map<number, PartialCall>();
  #finish: string | null = null;
  #usage: Usage | undefined;
  #model: string | undefined;
  #reasoning: ReasoningReader;

  /** `turnHash` names this request in generated call ids; `emit` must not throw. */
  constructor(readonly turnHash: () => string, readonly emit: (e: ModelStreamEvent) => void) {
    this.#reasoning = new ReasoningReader(emit);
  }

  /** Adds one chunk, emitting the text and tool call events it carries. */
  add(chunk: OpenAI.Chat.ChatCompletionChunk): void {
    if (typeof chunk.model === "string" && chunk.model !== "") this.#model = chunk.model;
    if (chunk.usage) this.#usage = toUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = contentChunks(choice.delta ?? {});
    const text = this.#reasoning.content(
      delta,
      (typeof delta.content === "string" ? delta.content : "") +
        (typeof delta.refusal === "string" ? delta.refusal : ""),
    );
    if (text !== "") {
      this.#text += text;
      this.emit({ type: "text_delta", delta: text });
    }
    for (const tc of delta.tool_calls ?? []) this.#addToolDelta(tc);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
  }

  #addToolDelta(tc: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const fn = tc.function as { name?: unknown; arguments?: unknown } | undefined;
    const id = typeof tc.id === "string" && tc.id !== "" ? tc.id : undefined;
    const name = typeof fn?.name === "string" && fn.name !== "" ? fn.name : undefined;
    const slotIndex = typeof tc.index === "number" ? tc.index : undefined;
    let call = slotIndex === undefined ? this.#calls.at(-1) : this.#bySlot.get(slotIndex);
    // A new id at a known index (some servers put every call at index 0) is a new call; a server
    // id arriving after we generated one still belongs to this call.
    const otherId = call?.serverId !== undefined && id !== undefined && call.serverId !== id;
    // Without an index (Gemini), a delta that names a call starts one, unless it repeats the id.
    const named = slotIndex === undefined && name !== undefined && call?.name !== "" &&
      (id === undefined || id !== call?.serverId);
    if (otherId || named) call = undefined;
    if (call === undefined) {
      call = {
        index: this.#calls.length,
        id: undefined,
        serverId: id,
        name: "",
        args: "",
        argsObject: undefined,
        started: false,
        pendingDeltas: [],
      };
      this.#calls.push(call);
      this.#bySlot.set(slotIndex ?? call.index, call);
    }
    if (call.serverId === undefined && id !== undefined) call.serverId = id;
    this.#reasoning.toolCall(call.index, tc);
    if (name !== undefined && name !== call.name) {
      // Names normally arrive once; a repeated full name is not appended again.
      call.name += name;
    }
    if (!call.started && call.name !== "") this.#start(call);
    if (typeof fn?.arguments === "string") {
      if (fn.arguments === "") return;
      call.args += fn.arguments;
      if (call.started) {
        this.emit({ type: "toolcall_delta", index: call.index, delta: fn.arguments });
      } else call.pendingDeltas.push(fn.arguments);
    } else if (fn?.arguments !== undefined && fn.arguments !== null) {
      // Some servers send the arguments as a JSON object instead of a string.
      call.argsObject = fn.arguments;
    }
  }

  /** Announces a call once it has a name, under an id no other call of this reply has. */
  #start(call: PartialCall): void {
    call.started = true;
    call.id = this.#uniqueId(call.serverId ?? this.#generatedId(call.index), call);
    this.emit({ type: "toolcall_start", index: call.index, id: call.id, name: call.name });
    for (const piece of call.pendingDeltas.splice(0)) {
      this.emit({ type: "toolcall_delta", index: call.index, delta: piece });
    }
  }

  #uniqueId(wanted: string, call: PartialCall): string {
    const taken = (id: string) => this.#calls.some((c) => c !== call && c.id === id);
    if (!taken(wanted)) return wanted;
    let n = call.index;
    while (taken(`${wanted}_${n}`)) n++;
    return `${wanted}_${n}`;
  }

  #generatedId(index: number): string {
    return `call_${index}_${this.turnHash()}`;
  }

  /** The assembled reply; throws ModelError `incomplete_stream` if the stream never finished. */
  finish(): AssistantMessage {
    if (this.#finish === null) {
      throw new ModelError(
        "incomplete_stream",
        "The model's reply stream ended without a finish reason: the connection was probably " +
          "cut. The partial reply was discarded; try again.",
      );
    }
    if (this.#finish === "error") {
      // OpenRouter ends a reply that failed upstream this way: the partial reply is no answer.
      throw new ModelError(
        "server",
        'The model server ended its reply with finish_reason "error": the generation failed ' +
          "upstream. The partial reply was discarded; try again.",
      );
    }
    const rest = this.#reasoning.flush();
    if (rest !== "") {
      this.#text += rest;
      this.emit({ type: "text_delta", delta: rest });
    }
    const blocks: AssistantMessage["blocks"] = [];
    if (this.#text !== "") blocks.push({ type: "text", text: this.#text });
    for (const call of this.#calls) {
      // A call that never got a name was never announced: it gets its id now.
      call.id ??= this.#uniqueId(call.serverId ?? this.#generatedId(call.index), call);
      blocks.push(toolCallBlock(call.id, call));
    }
    const { stopReason, raw } = mapFinish(this.#finish, this.#calls.length > 0);
    const message: AssistantMessage = {
      role: "assistant",
      blocks,
      stopReason,
      usage: this.#usage ?? emptyUsage(),
    };
    if (raw !== undefined) message.rawStopReason = raw;
    if (this.#model !== undefined) message.model = this.#model;
    this.#reasoning.finish(message, this.#calls.map((c) => c.index));
    return message;
  }
}

function toolCallBlock(id: string, call: PartialCall): ToolCallBlock {
  if (call.argsObject !== undefined && call.args === "") {
    return { type: "toolCall", id, name: call.name, arguments: call.argsObject };
  }
  // A call without arguments is a call with no arguments.
  if (call.args.trim() === "") return { type: "toolCall", id, name: call.name, arguments: {} };
  try {
    return { type: "toolCall", id, name: call.name, arguments: JSON.parse(call.args) };
  } catch (error) {
    return {
      type: "toolCall",
      id,
      name: call.name,
      arguments: call.args,
      invalidJson: error instanceof Error ? error.message : String(error),
    };
  }
}

function mapFinish(
  finish: string,
  hasCalls: boolean,
): { stopReason: StopReason; raw?: string } {
  switch (finish) {
    case "stop":
      // Some servers say "stop" even when the reply is tool calls (vLLM with a named
      // tool_choice, Gemini): the calls count.
      return { stopReason: hasCalls ? "toolUse" : "stop" };
    case "tool_calls":
    case "function_call":
      return { stopReason: "toolUse" };
    case "length":
      return { stopReason: "maxTokens" };
    // Other servers' words for the same: Mistral's "model_length", Anthropic-compatible
    // endpoints' "max_tokens", "end_turn", "stop_sequence" and "tool_use", "end"/"eos".
    case "model_length":
    case "max_tokens":
      return { stopReason: "maxTokens", raw: finish };
    case "tool_use":
      return { stopReason: "toolUse", raw: finish };
    case "end":
    case "eos":
    case "end_turn":
    case "stop_sequence":
      return { stopReason: hasCalls ? "toolUse" : "stop", raw: finish };
    default:
      // content_filter, safety, anything new: kept, never a crash; calls still count.
      return { stopReason: hasCalls ? "toolUse" : "error", raw: finish };
  }
}

/** Words in an in-stream error's code or type that say trying again will not help. */
const PERMANENT =
  /invalid|bad_?request|not_?found|unsupported|auth|permission|forbidden|billing|quota|insufficient|credit|moderation|flagged|tool_use_failed|content_filter/i;
/** Words that say the failure is the server's or upstream's and may pass. */
const TRANSIENT =
  /server|internal|overload|unavailable|timeout|timed_out|rate_?limit|capacity|busy|upstream|disconnect|gateway/i;

/**
 * Whether an error a server reported inside a 200 stream (`{"error":{…}}` chunks, `event: error`
 * frames; the SDK throws them as APIError without a status) is worth another attempt, decided by
 * its body: a numeric code or status of 408, 409, 429 or 5xx, or a code or type naming a server
 * failure, an overload, a timeout or a rate limit. Anything else, and a body that says nothing,
 * is not retried.
 */
export function isTransientStreamError(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const e = body as { code?: unknown; status?: unknown; type?: unknown; error?: unknown };
  if (typeof e.error === "object" && e.error !== null) return isTransientStreamError(e.error);
  for (const value of [e.code, e.status]) {
    const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : NaN;
    if (Number.isInteger(n) && n >= 100 && n < 600) {
      return n >= 500 || n === 408 || n === 409 || n === 429;
    }
  }
  const words = [e.code, e.type].filter((w): w is string => typeof w === "string").join(" ");
  if (words === "" || PERMANENT.test(words)) return false;
  return TRANSIENT.test(words);
}

function toUsage(u: OpenAI.CompletionUsage): Usage {
  const input = u.prompt_tokens ?? 0;
  const output = u.completion_tokens ?? 0;
  // DeepSeek reports cache hits in its own field.
  const deepseekCached = (u as { prompt_cache_hit_tokens?: unknown }).prompt_cache_hit_tokens;
  const cached = u.prompt_tokens_details?.cached_tokens ??
    (typeof deepseekCached === "number" ? deepseekCached : 0);
  return {
    inputTokens: input,
    outputTokens: output,
    cachedTokens: cached,
    totalTokens: u.total_tokens ?? input + output,
  };
}

/**
 * A delta whose `content` is an array of chunks (Mistral's Magistral: `{type:"text", text}` and
 * `{type:"thinking", thinking:[{type:"text", text}]}`) as a string `content` and `reasoning`.
 */
function contentChunks(
  delta: OpenAI.Chat.ChatCompletionChunk.Choice.Delta,
): OpenAI.Chat.ChatCompletionChunk.Choice.Delta {
  const content: unknown = delta.content;
  if (!Array.isArray(content)) return delta;
  const texts = (parts: unknown): string =>
    Array.isArray(parts)
      ? parts.map((p) => typeof p?.text === "string" && p.type === "text" ? p.text : "").join("")
      : "";
  const text = texts(content);
  const thinking = content.map((p) => p?.type === "thinking" ? texts(p.thinking) : "").join("");
  const raw = delta as Record<string, unknown>;
  return {
    ...delta,
    content: text,
    ...(thinking !== "" && typeof raw.reasoning !== "string" ? { reasoning: thinking } : {}),
  } as OpenAI.Chat.ChatCompletionChunk.Choice.Delta;
}
