/**
 * Reply streams of real OpenAI-compatible servers, byte for byte as their source or docs show
 * them, for `reply.sse(…)` of the fake server. Each const names the server and cites where the
 * shape was read; ids, timestamps and texts are made up.
 */

/** One SSE `data:` event of `value` (JSON-encoded unless a string). */
function data(value: unknown): string {
  return `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;
}

/** A chat.completion.chunk with one choice. */
function chunk(
  model: string,
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1_733_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  };
}

/**
 * Ollama: a runner error after the stream started. `BaseWriter.writeError` in ollama/ollama
 * `middleware/openai.go` encodes `openai.NewError(…)` straight into the event stream, without
 * `data: ` and without `data: [DONE]`: the SDK skips the line and its iterator just ends.
 */
export const OLLAMA_RUNNER_ERROR_MID_STREAM = [
  data(chunk("qwen2.5-coder:7b", { role: "assistant", content: "Let me" })),
  data(chunk("qwen2.5-coder:7b", { content: " check" })),
  JSON.stringify({
    error: {
      message: "an error was encountered while running the model: unexpected EOF",
      type: "api_error",
      param: null,
      code: null,
    },
  }) + "\n",
];

/**
 * llama.cpp before the 2025 server rewrite: `server_sent_event(sink, "error", error_data)` in
 * `examples/server/server.cpp` writes an `error:` field (not `data:`, so SSE parsers drop it), and
 * the handler then writes `data: [DONE]` anyway: [DONE] without any finish_reason.
 */
export const LLAMACPP_OLD_ERROR_FIELD = [
  data(chunk("gpt-3.5-turbo", { content: "Partial" })),
  'error: {"code":500,"message":"Compute error.","type":"server_error"}\n\n',
  "data: [DONE]\n\n",
];

/**
 * llama.cpp now: a task error during generation is `format_oai_sse(json {{"error", res_json}})`
 * in ggml-org/llama.cpp `tools/server/server.cpp` (res_json from `format_error_response`, whose
 * code is the HTTP status of the error type), and the stream ends without `data: [DONE]`.
 */
export const LLAMACPP_ERROR_CHUNK = [
  data(chunk("qwen3-8b", { role: "assistant", content: "Partial" })),
  data({ error: { code: 500, message: "Compute error.", type: "server_error" } }),
];

/**
 * OpenRouter: "Handling Errors During Streaming" in https://openrouter.ai/docs/api/reference/streaming
 * — after tokens were sent the status stays 200 and an error arrives as a chunk with a top-level
 * `error` and `finish_reason: "error"`, after `: OPENROUTER PROCESSING` comments.
 */
export const OPENROUTER_ERROR_CHUNK = [
  ": OPENROUTER PROCESSING\n\n",
  data(chunk("openai/gpt-4o", { role: "assistant", content: "The answer" })),
  data({
    ...chunk("openai/gpt-4o", { content: "" }, "error", {
      provider: "openai",
      error: { code: "server_error", message: "Provider disconnected unexpectedly" },
    }),
  }),
];

/**
 * OpenRouter's `finish_reason: "error"` without an `error` object (the finish reason is
 * documented in https://openrouter.ai/docs/api/reference/streaming and the chunk schema):
 * the partial reply must not become the answer.
 */
export const OPENROUTER_FINISH_ERROR = [
  data(chunk("openai/gpt-4o", { role: "assistant", content: "Half an" })),
  data(chunk("openai/gpt-4o", {}, "error")),
  "data: [DONE]\n\n",
];

/**
 * Groq: errors inside a stream come as an `event: error` frame (go-openai PR #1057 "handle SSE
 * error events from providers like Groq": `event: error\ndata: {"error": {...}}`), here with the
 * tool_use_failed body of groq/groq-typescript issue #28. openai-node `src/core/streaming.ts`
 * throws `event: error` as an APIError without a status.
 */
export const GROQ_TOOL_USE_FAILED = [
  data(chunk("llama-3.3-70b-versatile", { role: "assistant", content: "" })),
  "event: error\n" + data({
    error: {
      message:
        "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
      type: "invalid_request_error",
      code: "tool_use_failed",
      failed_generation: '<function=read{"path": "a.ts"}</function>',
    },
  }),
];

/**
 * An `event: error` frame whose data has no `error` key: openai-node `src/core/streaming.ts`
 * throws `new APIError(undefined, data?.error ?? data, …)`, the whole data as the error body.
 */
export const EVENT_ERROR_WITHOUT_ERROR_KEY = [
  data(chunk("some-model", { role: "assistant", content: "Working" })),
  "event: error\n" + data({ message: "Upstream model is overloaded.", type: "overloaded_error" }),
];

/** OpenRouter's keep-alive comment (https://openrouter.ai/docs/api/reference/streaming). */
export const OPENROUTER_PROCESSING_COMMENT = ": OPENROUTER PROCESSING";

/**
 * Gemini's OpenAI endpoint (generativelanguage.googleapis.com/v1beta/openai): parallel calls in
 * one delta without `index`, ids `""` (as in 2025, see issue #26 and the Gemini threads there),
 * and `finish_reason: "stop"` in the same chunk.
 */
export const GEMINI_PARALLEL_CALLS_NO_INDEX = [
  data(chunk("gemini-2.5-flash", {
    role: "assistant",
    tool_calls: [
      { id: "", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } },
      { id: "", type: "function", function: { name: "read", arguments: '{"path":"b.ts"}' } },
      { id: "", type: "function", function: { name: "ls", arguments: "" } },
    ],
  }, "stop")),
  "data: [DONE]\n\n",
];

/**
 * Ollama: `ToToolCalls` in ollama/ollama `openai/openai.go` sends each call whole in one chunk
 * (index, a generated id, arguments marshalled from the parsed object), then a finish chunk.
 */
export const OLLAMA_WHOLE_CALL = [
  data(chunk("qwen2.5-coder:7b", {
    role: "assistant",
    content: "",
    tool_calls: [{
      id: "call_k2x9c4",
      index: 0,
      type: "function",
      function: { name: "grep", arguments: '{"path":"src","pattern":"TODO"}' },
    }],
  })),
  data(chunk("qwen2.5-coder:7b", { role: "assistant", content: "" }, "tool_calls")),
  "data: [DONE]\n\n",
];

/**
 * vLLM with a named `tool_choice`: `chat_completion_stream_generator` in vllm-project/vllm
 * `vllm/entrypoints/openai/serving_chat.py` streams the arguments as DeltaToolCall pieces of the
 * named function and keeps the engine's `finish_reason` ("stop"), as tools were not auto-called.
 */
export const VLLM_NAMED_TOOL_CHOICE = [
  data(chunk("Qwen/Qwen2.5-7B-Instruct", { role: "assistant", content: "" })),
  data(chunk("Qwen/Qwen2.5-7B-Instruct", {
    tool_calls: [{
      id: "chatcmpl-tool-8b1e",
      type: "function",
      index: 0,
      function: { name: "read", arguments: '{"path": ' },
    }],
  })),
  data(chunk("Qwen/Qwen2.5-7B-Instruct", {
    tool_calls: [{ index: 0, function: { arguments: '"a.ts"}' } }],
  })),
  data(chunk("Qwen/Qwen2.5-7B-Instruct", { content: "" }, "stop")),
  "data: [DONE]\n\n",
];

/**
 * Some llama.cpp builds send `arguments` as a JSON object (issue #26); an empty string means no
 * arguments. Both at index 0/1 with ids, fragmented like `tools/server` streams them.
 */
export const LLAMACPP_OBJECT_AND_EMPTY_ARGUMENTS = [
  data(chunk("qwen3-8b", {
    role: "assistant",
    content: null,
    tool_calls: [{
      index: 0,
      id: "Xq3bTmHvV1sR0uPqJfW2kLzN4aEoYc8D",
      type: "function",
      function: { name: "grep", arguments: { pattern: "TODO", path: "src" } },
    }],
  })),
  data(chunk("qwen3-8b", {
    tool_calls: [{ index: 1, id: "", type: "function", function: { name: "ls", arguments: "" } }],
  })),
  data(chunk("qwen3-8b", {}, "tool_calls")),
  "data: [DONE]\n\n",
];

/**
 * Mistral's `finish_reason: "model_length"` (the model's own context ran out; Mistral's API
 * reference lists stop, length, model_length, error, tool_calls).
 */
export const MISTRAL_MODEL_LENGTH = [
  data(chunk("mistral-small-latest", { role: "assistant", content: "A long answer" })),
  data(chunk("mistral-small-latest", { content: "" }, "model_length")),
  "data: [DONE]\n\n",
];

/** A finish reason no server documents: kept as the raw reason, never a crash. */
export const UNKNOWN_FINISH_REASON = [
  data(chunk("some-model", { role: "assistant", content: "Done here." })),
  data(chunk("some-model", { content: "" }, "eos_token_reached")),
  "data: [DONE]\n\n",
];
