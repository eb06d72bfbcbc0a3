/**
 * Error bodies as real OpenAI-compatible servers send them (most are not OpenAI's
 * `{"error":{"message":…}}`), each with where its shape was read.
 */

/** vLLM before 0.10.1 (flat `ErrorResponse` of vllm/entrypoints/openai/protocol.py), started
 * without tool parsing; body quoted in langchain4j/langchain4j#3475. */
export const VLLM_FLAT_TOOL_CHOICE = JSON.stringify({
  object: "error",
  message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
  type: "BadRequestError",
  param: null,
  code: 400,
});

/** vLLM before 0.10.1, flat, prompt fits but the output budget does not (568 + 6048 > 6048);
 * quoted in ogx-ai/ogx#4534 (llama-stack discussion #981). */
export const VLLM_FLAT_BUDGET = JSON.stringify({
  object: "error",
  message: "This model's maximum context length is 6048 tokens. However, you requested 6616 " +
    "tokens (568 in the messages, 6048 in the completion). Please reduce the length of the " +
    "messages or completion.",
  type: "BadRequestError",
  param: null,
  code: 400,
});

/** vLLM before 0.10.1, flat, a real overflow: the prompt alone exceeds the window;
 * vllm-project/vllm#20409. */
export const VLLM_FLAT_OVERFLOW = JSON.stringify({
  object: "error",
  message: "This model's maximum context length is 16384 tokens. However, you requested 122946 " +
    "tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the " +
    "messages or completion.",
  type: "BadRequestError",
  param: null,
  code: 400,
});

/** vLLM 0.10 (nested since 0.10.1): "'max_tokens' or 'max_completion_tokens' is too large";
 * quoted in andrewcho-dev/opsconductor-ng vLLM_transition/TOKEN_LIMIT_FIX.md. */
export const VLLM_BUDGET_TOO_LARGE = JSON.stringify({
  error: {
    message: "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum " +
      "context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - " +
      "2778). None",
    type: "BadRequestError",
    param: null,
    code: 400,
  },
});

/** vLLM 0.11 and later (vllm/renderers/params.py `_token_len_check`), vllm-project/vllm#42474;
 * `param: "input_tokens"` as quoted in mlsbench logs. */
export const VLLM_BUDGET_AT_LEAST = JSON.stringify({
  error: {
    message: "This model's maximum context length is 128000 tokens. However, you requested " +
      "65535 output tokens and your prompt contains at least 62466 input tokens, for a total of " +
      "at least 128001 tokens. Please reduce the length of the input prompt or the number of " +
      "requested output tokens. (parameter=input_tokens, value=62466)",
    type: "BadRequestError",
    param: "input_tokens",
    code: 400,
  },
});

/** Mistral's 422: flat, its `message` a FastAPI validation body; editor-code-assistant/eca#231
 * and Gage-Technologies/mistral-go#2. */
export const MISTRAL_FLAT_VALIDATION = JSON.stringify({
  object: "error",
  message: {
    detail: [{
      type: "extra_forbidden",
      loc: ["body", "max_completion_tokens"],
      msg: "Extra inputs are not permitted",
      input: 32000,
    }],
  },
  type: "invalid_request_error",
  param: null,
  code: null,
});

/** FastAPI's validation error (`RequestValidationError` handler: `{"detail": [...]}`), as
 * Mistral sends it for unknown fields; Gitlawb/openclaude#739. */
export const FASTAPI_DETAIL_LIST = JSON.stringify({
  detail: [
    {
      type: "extra_forbidden",
      loc: ["body", "store"],
      msg: "Extra inputs are not permitted",
      input: false,
    },
    {
      type: "extra_forbidden",
      loc: ["body", "max_completion_tokens"],
      msg: "Extra inputs are not permitted",
      input: 8192,
    },
  ],
});

/** FastAPI's `HTTPException` body (fastapi.tiangolo.com/tutorial/handling-errors). */
export const FASTAPI_DETAIL_STRING = JSON.stringify({ detail: "Model not loaded" });

/** Gemini's OpenAI endpoint (generativelanguage.googleapis.com/v1beta/openai/): a JSON array;
 * SuzumiyaAkizuki/ComfyUI-NewBie-LLM-Formatter#3. */
export const GEMINI_ARRAY = JSON.stringify([{
  error: {
    code: 400,
    message: 'Invalid JSON payload received. Unknown name "reasoning": Cannot find field.',
    status: "INVALID_ARGUMENT",
    details: [{
      "@type": "type.googleapis.com/google.rpc.BadRequest",
      fieldViolations: [{
        description: 'Invalid JSON payload received. Unknown name "reasoning": Cannot find field.',
      }],
    }],
  },
}]);

/** LM Studio: `{"error": "<string>"}`; t59688/arboris-novel#23. */
export const LMSTUDIO_STRING = JSON.stringify({
  error: "'response_format.type' must be 'json_schema' or 'text'",
});

/** nginx's own 502 page in front of a model server (its built-in error page). */
export const NGINX_502_HTML =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
  "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n" +
  "</html>\r\n";

/** A plain-text error of several lines (a proxy or a server's stack trace). */
export const PLAIN_TEXT_TRACE = "Internal error: model runner crashed\n" +
  'Traceback (most recent call last):\n  File "server.py", line 1, in <module>\n';
