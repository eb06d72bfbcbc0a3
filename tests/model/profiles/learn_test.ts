/**
 * learnFromError(): the rejections servers answer, as their users reported them (each fixture
 * cites its source), matched to the switch that avoids them; and what must not match.
 */
import assert from "node:assert/strict";
import {
  type CompatSwitches,
  DEFAULT_SWITCHES,
  learnFromError,
} from "../../../src/model/profiles/mod.ts";

const ALL_SENT: CompatSwitches = {
  ...DEFAULT_SWITCHES,
  systemRole: "developer",
  parallelToolCalls: true,
  store: false,
  strict: false,
};

function learned(status: number, message: string, current = ALL_SENT, budget = true) {
  return learnFromError(status, message, current, budget)?.change;
}

Deno.test("learnFromError() turns each named field off, in the wordings servers use", () => {
  const cases: Array<[number, string, Partial<CompatSwitches>]> = [
    // Azure OpenAI (older api-version).
    [400, "Unrecognized request argument supplied: stream_options", { streamOptions: false }],
    [400, "Unrecognized request argument supplied: parallel_tool_calls", {
      parallelToolCalls: "omit",
    }],
    // Mistral, github.com/nomtek/mistralai_client_dart/issues/44 (the body, JSON).
    [
      422,
      `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body",` +
      `"store"],"msg":"Extra inputs are not permitted","input":false}]}}`,
      { store: "omit" },
    ],
    // vLLM/FastAPI via Pydantic, github.com/gpustack/gpustack/issues/429 (Python repr).
    [
      400,
      `[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs ` +
      `are not permitted', 'input': {'include_usage': True}}]`,
      { streamOptions: false },
    ],
    // Gemini's OpenAI endpoint (Google API field errors).
    [
      400,
      `Invalid JSON payload received. Unknown name "strict" at 'tools[0].function': Cannot find field.`,
      {
        strict: "omit",
      },
    ],
    // Older local servers and gateways.
    [400, "Unsupported parameter: 'max_completion_tokens'", { maxTokensField: "max_tokens" }],
    // DeepSeek, github.com/earendil-works/pi/issues/1048.
    [
      400,
      "Failed to deserialize the JSON body into the target type: messages[0].role: unknown " +
      "variant `developer`, expected one of `system`, `user`, `assistant`, `tool`",
      { systemRole: "system" },
    ],
  ];
  for (const [status, message, change] of cases) {
    assert.deepEqual(learned(status, message), change, message);
  }
});

Deno.test("learnFromError() takes the field named first: OpenAI's 'use max_completion_tokens instead'", () => {
  const classic = { ...ALL_SENT, maxTokensField: "max_tokens" as const };
  assert.deepEqual(
    learned(
      400,
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use " +
        "'max_completion_tokens' instead.",
      classic,
    ),
    { maxTokensField: "max_completion_tokens" },
  );
});

Deno.test("learnFromError() caps a budget at what the server states, never for an overflow", () => {
  // vLLM serving_engine (before 0.10) and vllm-project/vllm#42474 (0.20).
  assert.deepEqual(
    learned(
      400,
      "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's maximum context " +
        "length is 4096 tokens and your request has 3000 input tokens (2000 > 4096 - 3000).",
    ),
    { maxTokensCap: 1096 },
  );
  assert.deepEqual(
    learned(
      400,
      "This model's maximum context length is 128000 tokens. However, you requested 65535 " +
        "output tokens and your prompt contains at least 62466 input tokens, for a total of at " +
        "least 128001 tokens.",
    ),
    { maxTokensCap: 65534 },
  );
  // OpenAI.
  assert.deepEqual(
    learned(
      400,
      "max_tokens is too large: 100000. This model supports at most 16384 completion tokens, " +
        "whereas you provided 100000.",
    ),
    { maxTokensCap: 16384 },
  );
  // The prompt alone fills the window: an overflow (compaction's), not a budget.
  assert.equal(
    learned(
      400,
      "This model's maximum context length is 4096 tokens. However, you requested 5000 output " +
        "tokens and your prompt contains at least 4200 input tokens.",
    ),
    undefined,
  );
  assert.equal(
    learned(
      400,
      "This model's maximum context length is 8192 tokens. However, your messages resulted in " +
        "9000 tokens. Please reduce the length of the messages.",
    ),
    undefined,
  );
  // No budget was sent: the error cannot be about one.
  assert.equal(
    learned(
      400,
      "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's " +
        "maximum context length is 4096 tokens and your request has 3000 input tokens.",
      ALL_SENT,
      false,
    ),
    undefined,
  );
});

Deno.test("learnFromError() ignores other statuses, unnamed fields and switches already off", () => {
  assert.equal(learned(500, "Unrecognized request argument supplied: stream_options"), undefined);
  assert.equal(learned(429, "Unrecognized request argument supplied: store"), undefined);
  assert.equal(learned(400, "Invalid API key provided."), undefined);
  assert.equal(learned(400, "400 status code (no body)"), undefined);
  assert.equal(
    learned(
      400,
      "Unrecognized request argument supplied: stream_options",
      DEFAULT_SWITCHES.streamOptions ? { ...ALL_SENT, streamOptions: false } : ALL_SENT,
    ),
    undefined,
  );
  assert.equal(
    learned(400, "unknown variant `developer`, expected one of `system`", {
      ...ALL_SENT,
      systemRole: "system",
    }),
    undefined,
  );
});

Deno.test("learnFromError() turns vision off when a text-only model rejects the images sent", () => {
  const cases: Array<[number, string]> = [
    // llama.cpp tools/server without --mmproj (500 in older builds, 400 in newer ones).
    [
      500,
      "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
    ],
    [
      400,
      "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
    ],
    // Ollama's runner (model/model.go ErrNoVisionModel).
    [500, "this model is missing data required for image input"],
    // vLLM serving a text-only model.
    [400, "Qwen3-8B is not a multimodal model"],
  ];
  for (const [status, message] of cases) {
    assert.deepEqual(
      learnFromError(status, message, ALL_SENT, false, true)?.change,
      { vision: false },
      message,
    );
    assert.equal(learnFromError(status, message, ALL_SENT, false, false), undefined, "no image");
  }
  const off = { ...ALL_SENT, vision: false };
  assert.equal(learnFromError(500, cases[0]![1], off, false, true), undefined, "already off");
  assert.equal(
    learnFromError(500, "Unrecognized request argument supplied: store", ALL_SENT, false, true),
    undefined,
    "a 500 teaches nothing else",
  );
});

const STRICT = { alternateRoles: true, emptyToolContent: "empty" } as const;

Deno.test("learnFromError() turns alternating roles on when a strict chat template refuses the order", () => {
  const wordings: Array<[number, string]> = [
    // llama.cpp --jinja with a Mistral GGUF template (raise_exception → HTTP 500).
    [
      500,
      "After the optional system message, conversation roles must alternate " +
      "user/assistant/user/assistant/...",
    ],
    // vLLM renders the same template and answers 400 (jinja2 TemplateError).
    [400, "Conversation roles must alternate user/assistant/user/assistant/..."],
    // mistral-common's validator (Mistral's API, vLLM --tokenizer-mode mistral).
    [400, "Unexpected role 'user' after role 'tool'"],
    [422, "System message must be at the beginning of the conversation"],
  ];
  for (const [status, message] of wordings) {
    assert.deepEqual(learned(status, message), STRICT, message);
  }
  const already = { ...ALL_SENT, ...STRICT };
  assert.equal(learned(500, wordings[0]![1], already), undefined, "already on: not the cause");
  assert.equal(learned(503, wordings[0]![1]), undefined);
});
