/**
 * A fake OpenAI-compatible Chat Completions server for tests: a real HTTP server on 127.0.0.1 that
 * the real `openai` SDK talks to (never mock the SDK).
 *
 * Usage: `await using server = await startFakeOpenAI();` then point the SDK (or
 * `createOpenAiClient`) at `server.baseURL` (`http://127.0.0.1:<port>/v1`) with any api key, and
 * queue what the "model" does, one step per POST /v1/chat/completions request:
 * `server.script(reply.text("hi"), reply.toolCalls([{ id: "call_1", name: "read", arguments:
 * { path: "a.txt" } }], { argChunks: 3, interleave: true }), fault.status(429, { retryAfter: 0 }),
 * fault.disconnect(reply.text("half a reply"), { afterChunks: 2 }))`. Replies stream in the exact
 * OpenAI chunk shapes when the request has `stream: true` (role chunk, content deltas, tool-call
 * deltas with id/name first and arguments in pieces, a finish chunk, the usage chunk when
 * `stream_options.include_usage`, then `data: [DONE]`), or as one `chat.completion` otherwise.
 * Other helpers: `reply.message({text, toolCalls, finishReason, usage})`, `reply.deltas(raw)` for
 * hand-made deltas, `reply.sse(rawSseText)` to play a server's raw SSE body byte for byte, tool calls with `id: null` (id omitted on the wire) or `argsAsObject: true`,
 * string `arguments` sent verbatim (so invalid JSON is easy); option `delayMs` (before the first
 * byte); faults `fault.status(code, {retryAfter, message, code})`,
 * `fault.body(code, text, {contentType, server})` (the body verbatim, any shape or empty),
 * `fault.unauthorized()`, `fault.contextOverflow()`, `fault.disconnect(r, {afterChunks, clean})`,
 * `fault.malformed(r, {afterChunks})`, `fault.stall(r, {afterChunks, comment})` (only `: ping` comments
 * follow, counted in `server.commentsSent`, until the client aborts; `await server.waitForStreamsClosed()` proves it went away). A step may be a function `(request, n) => step` (e.g. keep calling tools
 * forever with `repeat((req) => …)`); `repeat(step, times)` repeats a step, `repeatUntil(step,
 * (req) => done)` until a request for which `done` holds (it takes the next step). When the script runs
 * out the server answers 500 "script exhausted" (with `x-should-retry: false`). Every request is
 * recorded in `server.requests`; `await server.waitForRequest(n)` resolves with the n-th request
 * (1-based, any path). Requests are validated like the real API (tool messages must follow their
 * assistant `tool_calls` in order, no images in tool messages, …) and answered 400 when invalid.
 * Context windows: option `contextWindow` answers every chat request whose prompt tokens
 * (`fakePromptTokens(body)`, the same count `usage.prompt_tokens` reports) exceed it with HTTP 400
 * in the wording and body shape of `overflowStyle` ("openai" default, "vllm", "llamacpp",
 * "ollama", "plain" without numbers); such a request takes no script step, is recorded as usual
 * and counted in `server.overflows`. Option `modelInfo` adds fields to every `/v1/models` entry
 * (e.g. `{max_model_len: 24000}`); option `props` is served as JSON on `GET /props` (llama.cpp).
 * `await server.close()` closes everything.
 * (An abrupt `fault.disconnect` makes Deno print the deliberate stream error on stderr: harmless.)
 */

/** A tool call the fake model makes. */
export interface FakeToolCall {
  /** The call id; `undefined` → generated `call_<n>`, `null` → omitted on the wire. */
  id?: string | null;
  name: string;
  /** An object is JSON-encoded; a string is sent verbatim (so it may be invalid JSON). */
  arguments: string | Record<string, unknown>;
  /** Send `arguments` as a JSON object instead of a string (some servers do). */
  argsAsObject?: boolean;
}

/** Token counts the fake reports; missing fields get deterministic estimates. */
export interface FakeUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
}

/** Options shared by every reply. */
export interface ReplyOptions {
  /** `finish_reason` of the final chunk; default `tool_calls` when there are calls, else `stop`. */
  finishReason?: string;
  /** Reported usage; default an estimate from the request and reply sizes. */
  usage?: FakeUsage;
  /** The `model` field; default the requested model. */
  model?: string;
  /** Wait this long before sending the response headers (first byte). */
  delayMs?: number;
}

/** Options for a reply with text. */
export interface TextReplyOptions extends ReplyOptions {
  /** How to split the text into deltas: a count of roughly equal pieces; default word by word. */
  chunks?: number;
}

/** Options for a reply with tool calls. */
export interface ToolCallsReplyOptions extends TextReplyOptions {
  /** Text content streamed before the calls. */
  text?: string;
  /** Number of pieces each call's arguments are split into (default 3). */
  argChunks?: number;
  /** Round-robin the calls' deltas (call 0 piece 1, call 1 piece 1, …) instead of one by one. */
  interleave?: boolean;
}

/** One raw `choices[0].delta` object, sent as-is in a chunk. */
export type RawDelta = Record<string, unknown>;

/** How a streamed reply is cut short. */
export interface Interruption {
  /** Number of chunks (data lines, or `reply.sse` pieces) sent before the interruption. */
  afterChunks: number;
  /** stall: the SSE comment sent while idle (default `: ping`). */
  comment?: string;
  /** disconnect: abort the connection; end: close cleanly without finish/[DONE]; malformed: send
   * a broken JSON chunk; stall: stop sending until the client goes away. */
  action: "disconnect" | "end" | "malformed" | "stall";
}

/** A scripted successful reply. */
export interface FakeReply {
  kind: "reply";
  /** The chunk deltas after the role chunk, in order. */
  deltas: RawDelta[];
  /** Assistant text (for non-streamed responses and usage estimates). */
  text: string;
  /** Tool calls in wire form (for non-streamed responses). */
  toolCalls: Array<Record<string, unknown>>;
  finishReason: string;
  options: ReplyOptions;
  interruption?: Interruption;
  /** A raw SSE body (see `reply.sse`) played instead of chunks built from `deltas`. */
  sse?: string[];
}

/** A scripted HTTP error response. */
export interface FakeStatus {
  kind: "status";
  status: number;
  message: string;
  type: string;
  code: string | null;
  /** `retry-after` header value in seconds, when set. */
  retryAfter?: number;
  delayMs?: number;
  /** Sent as the body verbatim instead of the OpenAI-style error (`fault.body`). */
  rawBody?: { text: string; contentType?: string; server?: string };
}

/** A request as the fake server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body (`undefined` for GET or a non-JSON body). */
  body: FakeChatBody | undefined;
  rawBody: string;
}

/** A loose view of a Chat Completions request body, convenient for assertions. */
export interface FakeChatBody {
  model: string;
  messages: FakeWireMessage[];
  tools?: Array<
    { type: string; function: { name: string; description?: string; parameters?: unknown } }
  >;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

/** A loose view of one wire message. */
export interface FakeWireMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: unknown } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

/** A function step: decides the reply from the request (n = 1-based chat request number). */
export type StepFn = (request: RecordedRequest, n: number) => Step | Promise<Step>;

/** A step repeated `times` times (forever when undefined), or until `until` holds. */
export interface RepeatStep {
  kind: "repeat";
  step: Step;
  remaining: number | undefined;
  /** Ends the repeat: the first request it holds for takes the next step instead. */
  until?: (request: RecordedRequest) => boolean;
}

/** One scripted answer. */
export type Step = FakeReply | FakeStatus | StepFn | RepeatStep;

/** Whose context-overflow wording and error body the fake answers with. */
export type OverflowStyle = "openai" | "vllm" | "llamacpp" | "ollama" | "plain";

/** Options of the fake server. */
export interface FakeOpenAIOptions {
  /** Model ids listed by GET /v1/models (default ["fake-model"]). */
  models?: string[];
  /** The model's context window: chat requests with more prompt tokens are answered HTTP 400. */
  contextWindow?: number;
  /** The server whose overflow error the fake imitates (default "openai"). */
  overflowStyle?: OverflowStyle;
  /** Extra fields merged into every GET /v1/models entry, e.g. `{max_model_len: 24000}`. */
  modelInfo?: Record<string, unknown>;
  /** Answered as JSON on GET /props (llama.cpp's server properties); 404 when unset. */
  props?: unknown;
  /** Answered on GET /api/version as `{"version": …}` (Ollama's server/routes.go); 404 when unset. */
  ollamaVersion?: string;
  /** GET /v1/models answers this status with OpenAI's error body instead of the list. */
  modelsStatus?: number;
  /**
   * Called when a streamed response has sent its last event, or ended early (the bench times a
   * run's exit from the end of its last reply).
   */
  onStreamEnd?: () => void;
}

/** The running fake server. */
export interface FakeOpenAIServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `http://127.0.0.1:<port>/v1`, for the SDK's `baseURL`. */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Chat completion requests only, in order. */
  readonly chatRequests: readonly RecordedRequest[];
  /** Chat requests answered with a context overflow (see `contextWindow`). */
  readonly overflows: number;
  /** Steps not consumed yet (a forever-repeat counts as 1). */
  readonly remainingSteps: number;
  /** Streamed responses still being sent (a client that went away is noticed within ~20 ms). */
  readonly openStreams: number;
  /** SSE comments sent by stalled streams so far (see `fault.stall`). */
  readonly commentsSent: number;
  /** Resolves once no streamed response is open; rejects after `timeoutMs` (5000). */
  waitForStreamsClosed(options?: { timeoutMs?: number }): Promise<void>;
  /** Appends steps to the script. */
  script(...steps: Step[]): void;
  /** Resolves with the n-th request (1-based, any path); rejects after `timeoutMs` (5000). */
  waitForRequest(n: number, options?: { timeoutMs?: number }): Promise<RecordedRequest>;
  /** Stops the server, ends open streams and waits until everything is closed. */
  close(): Promise<void>;
}

let idCounter = 0;

function splitEven(s: string, pieces: number): string[] {
  if (s.length === 0) return [""];
  const n = Math.max(1, Math.min(pieces, s.length));
  const size = Math.ceil(s.length / n);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

function splitWords(s: string): string[] {
  return s.match(/\S+\s*|\s+/g) ?? [];
}

function textDeltas(text: string, chunks: number | undefined): RawDelta[] {
  if (text === "") return [];
  const pieces = chunks === undefined ? splitWords(text) : splitEven(text, chunks);
  return pieces.map((content) => ({ content }));
}

/** Builders for scripted replies. */
export const reply = {
  /** A plain text answer (finish_reason stop unless overridden). */
  text(text: string, options: TextReplyOptions = {}): FakeReply {
    return reply.message({ ...options, text });
  },
  /** A reply with tool calls (and optional leading text). */
  toolCalls(calls: FakeToolCall[], options: ToolCallsReplyOptions = {}): FakeReply {
    return reply.message({ ...options, toolCalls: calls });
  },
  /** The general form: text and/or tool calls. */
  message(spec: ToolCallsReplyOptions & { toolCalls?: FakeToolCall[] }): FakeReply {
    const text = spec.text ?? "";
    const calls = spec.toolCalls ?? [];
    const argChunks = spec.argChunks ?? 3;
    const perCall: RawDelta[][] = [];
    const wire: Array<Record<string, unknown>> = [];
    calls.forEach((call, index) => {
      const id = call.id === undefined ? `call_${++idCounter}` : call.id;
      const args = typeof call.arguments === "string"
        ? call.arguments
        : JSON.stringify(call.arguments);
      const head: Record<string, unknown> = {
        index,
        ...(id === null ? {} : { id }),
        type: "function",
        function: { name: call.name, arguments: "" },
      };
      const pieces: RawDelta[] = [];
      let wireArgs: unknown = args;
      if (call.argsAsObject) {
        wireArgs = typeof call.arguments === "string" ? JSON.parse(call.arguments) : call.arguments;
        pieces.push({
          tool_calls: [{ ...head, function: { name: call.name, arguments: wireArgs } }],
        });
      } else {
        pieces.push({ tool_calls: [head] });
        for (const part of splitEven(args, argChunks)) {
          pieces.push({ tool_calls: [{ index, function: { arguments: part } }] });
        }
      }
      wire.push({
        ...(id === null ? {} : { id }),
        type: "function",
        function: { name: call.name, arguments: wireArgs },
      });
      perCall.push(pieces);
    });
    const callDeltas: RawDelta[] = [];
    if (spec.interleave) {
      const longest = Math.max(0, ...perCall.map((p) => p.length));
      for (let i = 0; i < longest; i++) {
        for (const pieces of perCall) {
          const d = pieces[i];
          if (d) callDeltas.push(d);
        }
      }
    } else {
      for (const pieces of perCall) callDeltas.push(...pieces);
    }
    return {
      kind: "reply",
      deltas: [...textDeltas(text, spec.chunks), ...callDeltas],
      text,
      toolCalls: wire,
      finishReason: spec.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop"),
      options: pickReplyOptions(spec),
    };
  },
  /**
   * A streamed body exactly as a server's source shows it (comments, `event:` lines, chunks of any
   * shape, with or without `data: [DONE]`), byte for byte; the pieces of an array are written one
   * by one (so `fault.stall`/`disconnect` can cut after a piece). Streaming requests only.
   */
  sse(raw: string | string[], options: ReplyOptions = {}): FakeReply {
    return {
      kind: "reply",
      deltas: [],
      text: "",
      toolCalls: [],
      finishReason: "stop",
      options: pickReplyOptions(options),
      sse: (typeof raw === "string" ? [raw] : raw).filter((piece) => piece !== ""),
    };
  },
  /** Hand-made deltas, sent verbatim after the role chunk (streaming only makes full sense). */
  deltas(deltas: RawDelta[], options: ReplyOptions & { text?: string } = {}): FakeReply {
    return {
      kind: "reply",
      deltas,
      text: options.text ?? deltas.map((d) => typeof d.content === "string" ? d.content : "")
        .join(""),
      toolCalls: [],
      finishReason: options.finishReason ?? "stop",
      options: pickReplyOptions(options),
    };
  },
};

function pickReplyOptions(o: ReplyOptions): ReplyOptions {
  const out: ReplyOptions = {};
  if (o.finishReason !== undefined) out.finishReason = o.finishReason;
  if (o.usage !== undefined) out.usage = o.usage;
  if (o.model !== undefined) out.model = o.model;
  if (o.delayMs !== undefined) out.delayMs = o.delayMs;
  return out;
}

const STATUS_DEFAULTS: Record<number, { type: string; message: string; code: string | null }> = {
  400: { type: "invalid_request_error", message: "Bad request.", code: null },
  401: {
    type: "invalid_request_error",
    message: "Incorrect API key provided: sk-fake. You can find your API key at " +
      "https://platform.openai.com/account/api-keys.",
    code: "invalid_api_key",
  },
  429: {
    type: "requests",
    message: "Rate limit reached for requests. Please try again in 1s.",
    code: "rate_limit_exceeded",
  },
  500: {
    type: "server_error",
    message: "The server had an error while processing your request.",
    code: null,
  },
};

/** Builders for failures. */
export const fault = {
  /** An HTTP error with an OpenAI-style error body. */
  status(
    status: number,
    options: {
      retryAfter?: number;
      message?: string;
      code?: string | null;
      type?: string;
      delayMs?: number;
    } = {},
  ): FakeStatus {
    const d = STATUS_DEFAULTS[status] ??
      { type: "server_error", message: `Fake error with status ${status}.`, code: null };
    const s: FakeStatus = {
      kind: "status",
      status,
      message: options.message ?? d.message,
      type: options.type ?? d.type,
      code: options.code === undefined ? d.code : options.code,
    };
    if (options.retryAfter !== undefined) s.retryAfter = options.retryAfter;
    if (options.delayMs !== undefined) s.delayMs = options.delayMs;
    return s;
  },
  /** An HTTP error whose body is `text` as given (any shape a real server sends, or ""). */
  body(
    status: number,
    text: string,
    options: { contentType?: string; server?: string } = {},
  ): FakeStatus {
    return { ...fault.status(status), rawBody: { text, ...options } };
  },
  /** HTTP 401 invalid api key. */
  unauthorized(): FakeStatus {
    return fault.status(401);
  },
  /** HTTP 400 with OpenAI's context-length message. */
  contextOverflow(options: { message?: string } = {}): FakeStatus {
    return fault.status(400, {
      message: options.message ??
        "This model's maximum context length is 8192 tokens. However, your messages resulted in " +
          "9000 tokens. Please reduce the length of the messages.",
      code: "context_length_exceeded",
    });
  },
  /** Streams `afterChunks` chunks of the reply, then aborts the connection (or ends cleanly). */
  disconnect(r: FakeReply, options: { afterChunks?: number; clean?: boolean } = {}): FakeReply {
    return {
      ...r,
      interruption: {
        afterChunks: options.afterChunks ?? 2,
        action: options.clean ? "end" : "disconnect",
      },
    };
  },
  /** Streams `afterChunks` chunks, then a chunk whose JSON is broken, then the rest. */
  malformed(r: FakeReply, options: { afterChunks?: number } = {}): FakeReply {
    return { ...r, interruption: { afterChunks: options.afterChunks ?? 1, action: "malformed" } };
  },
  /**
   * Streams `afterChunks` chunks, then only SSE comments (`comment`, default `: ping`, every 20 ms)
   * until the client (or close()) ends it.
   */
  stall(r: FakeReply, options: { afterChunks?: number; comment?: string } = {}): FakeReply {
    const interruption: Interruption = { afterChunks: options.afterChunks ?? 1, action: "stall" };
    if (options.comment !== undefined) interruption.comment = options.comment;
    return { ...r, interruption };
  },
  /** Waits `ms` before the first byte of the given step. */
  delay<S extends FakeReply | FakeStatus>(ms: number, step: S): S {
    return step.kind === "reply"
      ? { ...step, options: { ...step.options, delayMs: ms } }
      : { ...step, delayMs: ms };
  },
};

/** Repeats a step `times` times, or forever when `times` is omitted. */
export function repeat(step: Step, times?: number): RepeatStep {
  return { kind: "repeat", step, remaining: times };
}

/** Repeats a step until a request for which `until` holds: that one takes the next step. */
export function repeatUntil(step: Step, until: (request: RecordedRequest) => boolean): RepeatStep {
  return { kind: "repeat", step, remaining: undefined, until };
}

/** The names of the tools a request offers. */
export function offeredTools(request: RecordedRequest | undefined): string[] {
  return (request?.body?.tools ?? []).map((x) => x.function.name);
}

/**
 * MCP servers start in parallel with a run: the model lists the workspace (a turn every
 * `delayMs`, default 100 ms; moat's default turn limit is 100) until a request offers `tool`,
 * which takes the next step.
 */
export function untilOffered(tool: string, options: { delayMs?: number } = {}): RepeatStep {
  return repeatUntil(
    reply.toolCalls([{ name: "ls", arguments: {} }], { delayMs: options.delayMs ?? 100 }),
    (request) => offeredTools(request).includes(tool),
  );
}

/** Problems the real OpenAI API would reject this request body for (empty when fine). */
export function openAiRequestProblems(body: unknown): string[] {
  const problems: string[] = [];
  if (typeof body !== "object" || body === null) return ["Request body is not a JSON object."];
  const b = body as Record<string, unknown>;
  if (typeof b.model !== "string" || b.model === "") problems.push("'model' is required.");
  const messages = b.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    problems.push("'messages' must be a non-empty array.");
    return problems;
  }
  let pending: string[] = [];
  let answered = new Set<string>();
  messages.forEach((raw: unknown, i: number) => {
    const m = raw as FakeWireMessage;
    if (m.role !== "tool" && pending.length > 0) {
      problems.push(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to ` +
          `each 'tool_call_id'. The following tool_call_ids did not have response messages: ` +
          pending.join(", "),
      );
      pending = [];
    }
    switch (m.role) {
      case "system":
      case "developer":
        if (typeof m.content !== "string") {
          problems.push(`messages[${i}].content must be a string.`);
        }
        break;
      case "user":
        if (typeof m.content !== "string" && !Array.isArray(m.content)) {
          problems.push(`messages[${i}].content must be a string or an array of parts.`);
        }
        if (Array.isArray(m.content)) {
          for (const part of m.content as Array<Record<string, unknown>>) {
            if (part.type === "image_url") {
              const url = (part.image_url as { url?: unknown } | undefined)?.url;
              if (typeof url !== "string") problems.push(`messages[${i}]: image_url.url missing.`);
            } else if (part.type !== "text" || typeof part.text !== "string") {
              problems.push(`messages[${i}]: invalid content part type '${String(part.type)}'.`);
            }
          }
        }
        break;
      case "assistant": {
        const calls = m.tool_calls ?? [];
        if (m.tool_calls !== undefined && calls.length === 0) {
          problems.push(`messages[${i}].tool_calls must not be empty.`);
        }
        const ids = new Set<string>();
        for (const c of calls) {
          if (typeof c.id !== "string" || c.id === "") {
            problems.push(`messages[${i}]: tool call id missing.`);
          }
          if (ids.has(c.id)) problems.push(`messages[${i}]: duplicate tool call id '${c.id}'.`);
          ids.add(c.id);
          if (typeof c.function?.arguments !== "string") {
            problems.push(`messages[${i}]: tool call arguments must be a string.`);
          }
        }
        if (calls.length === 0 && (m.content === null || m.content === undefined)) {
          problems.push(`messages[${i}]: assistant message needs content or tool_calls.`);
        }
        pending = [...ids];
        answered = new Set();
        break;
      }
      case "tool": {
        const id = m.tool_call_id;
        if (typeof id !== "string" || !pending.includes(id)) {
          problems.push(
            `Invalid parameter: messages with role 'tool' must be a response to a preceeding ` +
              `message with 'tool_calls' (messages[${i}], tool_call_id '${String(id)}').`,
          );
        } else if (answered.has(id)) {
          problems.push(`messages[${i}]: tool_call_id '${id}' answered twice.`);
        } else {
          answered.add(id);
          pending = pending.filter((p) => p !== id);
        }
        if (Array.isArray(m.content)) {
          for (const part of m.content as Array<Record<string, unknown>>) {
            if (part.type !== "text") {
              problems.push(`messages[${i}]: tool messages accept text only.`);
            }
          }
        } else if (typeof m.content !== "string") {
          problems.push(`messages[${i}].content must be a string.`);
        }
        break;
      }
      default:
        problems.push(`messages[${i}].role '${String(m.role)}' is not supported.`);
    }
  });
  if (pending.length > 0) {
    problems.push(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to ` +
        `each 'tool_call_id'. The following tool_call_ids did not have response messages: ` +
        pending.join(", "),
    );
  }
  if (b.tools !== undefined) {
    if (!Array.isArray(b.tools) || b.tools.length === 0) {
      problems.push("'tools' must be a non-empty array when present.");
    } else {
      for (const t of b.tools as Array<Record<string, unknown>>) {
        const fn = t.function as Record<string, unknown> | undefined;
        if (t.type !== "function" || typeof fn?.name !== "string") {
          problems.push("Each tool needs type 'function' and a function name.");
        } else if (
          fn.parameters !== undefined &&
          (typeof fn.parameters !== "object" || fn.parameters === null ||
            Array.isArray(fn.parameters))
        ) {
          problems.push(`Tool '${fn.name}': parameters must be a JSON Schema object.`);
        }
      }
    }
  }
  return problems;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function errorResponse(s: FakeStatus): Response {
  const headers: Record<string, string> = {};
  if (s.retryAfter !== undefined) headers["retry-after"] = String(s.retryAfter);
  if (s.rawBody !== undefined) {
    const { text, contentType, server } = s.rawBody;
    if (contentType !== undefined) headers["content-type"] = contentType;
    if (server !== undefined) headers["server"] = server;
    return new Response(text, { status: s.status, headers });
  }
  return json(s.status, {
    error: { message: s.message, type: s.type, param: null, code: s.code },
  }, headers);
}

function estimateTokens(s: string): number {
  return Math.max(1, Math.ceil(s.length / 4));
}

/** The prompt tokens the fake counts for a chat request: its messages and tools, ~4 chars each. */
export function fakePromptTokens(body: FakeChatBody): number {
  return estimateTokens(JSON.stringify(body.messages ?? [])) +
    estimateTokens(JSON.stringify(body.tools ?? []));
}

/** The HTTP 400 a server of `style` answers when `prompt` tokens exceed its `window`. */
function overflowResponse(style: OverflowStyle, window: number, prompt: number): Response {
  const error = (message: string, type: string, code: string | null = null) => ({
    error: { message, type, param: null, code },
  });
  switch (style) {
    case "openai":
      return json(
        400,
        error(
          `This model's maximum context length is ${window} tokens. However, your messages ` +
            `resulted in ${prompt} tokens. Please reduce the length of the messages.`,
          "invalid_request_error",
          "context_length_exceeded",
        ),
      );
    case "vllm":
      // vLLM's ErrorResponse is the bare object, not wrapped in `error`.
      return json(400, {
        object: "error",
        message: `This model's maximum context length is ${window} tokens. However, your ` +
          `request has ${prompt} input tokens. Please reduce the length of the input messages.`,
        type: "BadRequestError",
        param: null,
        code: 400,
      });
    case "llamacpp":
      return json(400, {
        error: {
          code: 400,
          message: `request (${prompt} tokens) exceeds the available context size ` +
            `(${window} tokens), try increasing it`,
          type: "exceed_context_size_error",
          n_prompt_tokens: prompt,
          n_ctx: window,
        },
      });
    case "ollama":
      return json(
        400,
        error(
          `prompt too long; exceeded max context length by ${prompt - window} tokens`,
          "api_error",
        ),
      );
    case "plain":
      return json(
        400,
        error("the input length exceeds the context length", "invalid_request_error"),
      );
  }
}

function usageOf(r: FakeReply, body: FakeChatBody) {
  const u = r.options.usage ?? {};
  const prompt = u.prompt_tokens ?? fakePromptTokens(body);
  const completion = u.completion_tokens ??
    estimateTokens(r.text + JSON.stringify(r.toolCalls));
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

const STALL_PING_MS = 20;

type SseEvent =
  | { data: string }
  | { raw: string }
  | { stall: true; comment: string }
  | { fail: true };

function streamEvents(r: FakeReply, body: FakeChatBody, created: number): SseEvent[] {
  const id = `chatcmpl-fake${++idCounter}`;
  const model = r.options.model ?? body.model;
  const includeUsage = body.stream_options?.include_usage === true;
  const base = {
    id,
    object: "chat.completion.chunk",
    created,
    model,
    system_fingerprint: "fp_fake",
  };
  const chunk = (delta: RawDelta, finish: string | null) =>
    JSON.stringify({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
  const data: string[] = [
    chunk({ role: "assistant", content: "", refusal: null }, null),
    ...r.deltas.map((d) => chunk(d, null)),
    chunk({}, r.finishReason),
  ];
  if (includeUsage) {
    data.push(JSON.stringify({ ...base, choices: [], usage: usageOf(r, body) }));
  }
  data.push("[DONE]");
  const events: SseEvent[] = r.sse === undefined
    ? data.map((d) => ({ data: d }))
    : r.sse.map((raw) => ({ raw }));
  const cut = r.interruption;
  // A raw body may be cut after its last piece (e.g. stall after the comments it starts with).
  if (cut === undefined || (cut.afterChunks >= events.length && r.sse === undefined)) {
    return events;
  }
  switch (cut.action) {
    case "disconnect":
      return [...events.slice(0, cut.afterChunks), { fail: true }];
    case "end":
      return [...events.slice(0, cut.afterChunks), { raw: "" }];
    case "stall":
      return [...events.slice(0, cut.afterChunks), {
        stall: true,
        comment: cut.comment ?? ": ping",
      }];
    case "malformed":
      // The broken chunk goes in between; the rest of the reply still follows.
      events.splice(cut.afterChunks, 0, {
        raw: `data: {"id":"${id}","object":"chat.completion.chunk","choices":[{"delta":\n\n`,
      });
      return events;
  }
}

function sseBody(
  events: SseEvent[],
  signals: { server: AbortSignal; client: AbortSignal },
  onEnd: () => void,
  onComment: () => void = () => {},
): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const cancelled = new AbortController();
  const stop = AbortSignal.any([signals.server, cancelled.signal, signals.client]);
  let ended = false;
  const end = () => {
    if (!ended) {
      ended = true;
      onEnd();
    }
  };
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const ev = events[i++];
        if (ev === undefined || ("raw" in ev && ev.raw === "")) {
          end();
          controller.close();
        } else if ("data" in ev) {
          controller.enqueue(enc.encode(`data: ${ev.data}\n\n`));
        } else if ("raw" in ev) {
          controller.enqueue(enc.encode(ev.raw));
        } else if ("stall" in ev) {
          // Like real servers, send SSE comments while idle: writing is how a server notices
          // that the client has gone away.
          await abortableSleep(STALL_PING_MS, stop);
          if (!stop.aborted) {
            i--;
            controller.enqueue(enc.encode(`${ev.comment}\n\n`));
            onComment();
            return;
          }
          end();
          if (!cancelled.signal.aborted) {
            controller.error(new Error("Fake OpenAI server: stream ended by close()."));
          }
        } else {
          end();
          controller.error(new Error("Fake OpenAI server: disconnected mid-stream on purpose."));
        }
      } catch {
        // The client went away while we were writing: nothing left to do.
        end();
      }
    },
    cancel() {
      cancelled.abort();
      end();
    },
  });
}

function completionResponse(r: FakeReply, body: FakeChatBody, created: number): Response {
  return json(200, {
    id: `chatcmpl-fake${++idCounter}`,
    object: "chat.completion",
    created,
    model: r.options.model ?? body.model,
    system_fingerprint: "fp_fake",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: r.text === "" && r.toolCalls.length > 0 ? null : r.text,
        refusal: null,
        ...(r.toolCalls.length > 0 ? { tool_calls: r.toolCalls } : {}),
      },
      logprobs: null,
      finish_reason: r.finishReason,
    }],
    usage: usageOf(r, body),
  });
}

/** Starts a fake OpenAI server on 127.0.0.1 with an ephemeral port. */
export function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAIServer> {
  const models = options.models ?? ["fake-model"];
  const queue: Step[] = [];
  const requests: RecordedRequest[] = [];
  const chatRequests: RecordedRequest[] = [];
  const waiters: Array<
    { n: number; resolve: (r: RecordedRequest) => void; fail: (e: Error) => void }
  > = [];
  const closing = new AbortController();
  let stepsUsed = 0;
  let overflows = 0;
  let openStreams = 0;
  let commentsSent = 0;
  const idleWaiters: Array<() => void> = [];
  function streamEnded() {
    options.onStreamEnd?.();
    openStreams--;
    if (openStreams === 0) { for (const w of idleWaiters.splice(0)) w(); }
  }

  function takeStep(request: RecordedRequest): Step | undefined {
    const head = queue[0];
    if (head === undefined) return undefined;
    if (typeof head !== "function" && head.kind === "repeat" && head.until?.(request) === true) {
      queue.shift();
      return takeStep(request);
    }
    if (typeof head !== "function" && head.kind === "repeat") {
      if (head.remaining !== undefined) {
        head.remaining--;
        if (head.remaining <= 0) queue.shift();
      }
      return head.step;
    }
    queue.shift();
    return head;
  }

  async function resolveStep(
    step: Step,
    req: RecordedRequest,
    n: number,
  ): Promise<FakeReply | FakeStatus> {
    let s = step;
    for (let depth = 0; depth < 10; depth++) {
      if (typeof s === "function") s = await s(req, n);
      else if (s.kind === "repeat") s = s.step;
      else return s;
    }
    throw new Error("Fake OpenAI server: a step function kept returning functions.");
  }

  async function chat(rec: RecordedRequest, clientGone: AbortSignal): Promise<Response> {
    const body = rec.body;
    if (body === undefined) {
      return errorResponse(
        fault.status(400, { message: "We could not parse the JSON body of your request." }),
      );
    }
    const problems = openAiRequestProblems(body);
    if (problems.length > 0) {
      return errorResponse(fault.status(400, { message: problems.join(" ") }));
    }
    if (options.contextWindow !== undefined) {
      const prompt = fakePromptTokens(body);
      if (prompt > options.contextWindow) {
        overflows++;
        return overflowResponse(options.overflowStyle ?? "openai", options.contextWindow, prompt);
      }
    }
    const n = chatRequests.length;
    const step = takeStep(rec);
    if (step === undefined) {
      return json(500, {
        error: {
          message:
            `Fake OpenAI server: script exhausted after ${stepsUsed} step(s); chat request ` +
            `#${n} was not scripted. Add more steps with server.script(...).`,
          type: "fake_script_exhausted",
          param: null,
          code: null,
        },
      }, { "x-should-retry": "false" });
    }
    stepsUsed++;
    const s = await resolveStep(step, rec, n);
    const delayMs = s.kind === "reply" ? s.options.delayMs : s.delayMs;
    if (delayMs !== undefined) {
      await abortableSleep(delayMs, AbortSignal.any([closing.signal, clientGone]));
    }
    if (s.kind === "status") return errorResponse(s);
    const created = Math.floor(Date.now() / 1000);
    if (body.stream !== true) return completionResponse(s, body, created);
    openStreams++;
    return new Response(
      sseBody(
        streamEvents(s, body, created),
        { server: closing.signal, client: clientGone },
        streamEnded,
        () => commentsSent++,
      ),
      {
        status: 200,
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache",
        },
      },
    );
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const rawBody = request.method === "GET" || request.method === "HEAD"
      ? ""
      : await request.text();
    let body: FakeChatBody | undefined;
    try {
      body = rawBody === "" ? undefined : JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const rec: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      headers: Object.fromEntries(request.headers),
      body,
      rawBody,
    };
    requests.push(rec);
    const isChat = request.method === "POST" && url.pathname === "/v1/chat/completions";
    if (isChat) chatRequests.push(rec);
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i]!;
      if (requests.length >= w.n) {
        waiters.splice(i, 1);
        w.resolve(requests[w.n - 1]!);
      }
    }
    if (isChat) return await chat(rec, request.signal);
    if (
      request.method === "GET" && url.pathname === "/v1/models" &&
      options.modelsStatus !== undefined
    ) {
      // OpenAI's wording for a bad key; other statuses get a generic one.
      const message = options.modelsStatus === 401
        ? "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys."
        : `Fake OpenAI server: /v1/models answers HTTP ${options.modelsStatus}.`;
      return json(options.modelsStatus, {
        error: {
          message,
          type: "invalid_request_error",
          param: null,
          code: options.modelsStatus === 401 ? "invalid_api_key" : null,
        },
      });
    }
    if (request.method === "GET" && url.pathname === "/api/version" && options.ollamaVersion) {
      return json(200, { version: options.ollamaVersion });
    }
    if (request.method === "GET" && url.pathname === "/v1/models") {
      return json(200, {
        object: "list",
        data: models.map((id) => ({
          id,
          object: "model",
          created: 1700000000,
          owned_by: "fake",
          ...options.modelInfo,
        })),
      });
    }
    if (request.method === "GET" && url.pathname === "/props" && options.props !== undefined) {
      return json(200, options.props);
    }
    return json(404, {
      error: {
        message: `Fake OpenAI server: no route for ${request.method} ${url.pathname}.`,
        type: "invalid_request_error",
        param: null,
        code: "unknown_url",
      },
    });
  }

  return new Promise((resolveStart) => {
    const httpServer = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      // Faults end response streams with an error on purpose; Deno would log each one.
      onError: () => new Response(null, { status: 500 }),
      onListen: (addr) => {
        const url = `http://127.0.0.1:${addr.port}`;
        let closed: Promise<void> | undefined;
        const server: FakeOpenAIServer = {
          url,
          baseURL: `${url}/v1`,
          requests,
          chatRequests,
          get overflows() {
            return overflows;
          },
          get remainingSteps() {
            return queue.length;
          },
          get openStreams() {
            return openStreams;
          },
          get commentsSent() {
            return commentsSent;
          },
          waitForStreamsClosed(opts = {}) {
            if (openStreams === 0) return Promise.resolve();
            const timeoutMs = opts.timeoutMs ?? 5000;
            return new Promise((resolve, reject) => {
              const done = () => {
                clearTimeout(timer);
                resolve();
              };
              const timer = setTimeout(() => {
                idleWaiters.splice(idleWaiters.indexOf(done), 1);
                reject(
                  new Error(
                    `Fake OpenAI server: ${openStreams} stream(s) still open after ${timeoutMs} ms.`,
                  ),
                );
              }, timeoutMs);
              idleWaiters.push(done);
            });
          },
          script(...steps) {
            queue.push(...steps);
          },
          waitForRequest(n, opts = {}) {
            const have = requests[n - 1];
            if (have) return Promise.resolve(have);
            const timeoutMs = opts.timeoutMs ?? 5000;
            return new Promise((resolve, reject) => {
              const waiter = {
                n,
                resolve: (r: RecordedRequest) => {
                  clearTimeout(timer);
                  resolve(r);
                },
                fail: (e: Error) => {
                  clearTimeout(timer);
                  reject(e);
                },
              };
              const timer = setTimeout(() => {
                waiters.splice(waiters.indexOf(waiter), 1);
                reject(
                  new Error(
                    `Fake OpenAI server: request #${n} did not arrive within ${timeoutMs} ms ` +
                      `(${requests.length} received).`,
                  ),
                );
              }, timeoutMs);
              waiters.push(waiter);
            });
          },
          close() {
            closed ??= (async () => {
              closing.abort();
              for (const w of waiters.splice(0)) {
                w.fail(new Error(`Fake OpenAI server: closed before request #${w.n} arrived.`));
              }
              await httpServer.shutdown();
              await httpServer.finished;
            })();
            return closed;
          },
          [Symbol.asyncDispose]() {
            return server.close();
          },
        };
        resolveStart(server);
      },
    }, (req) => handle(req));
  });
}
