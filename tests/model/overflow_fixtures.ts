/** Context-overflow error messages of real servers, and what `parseOverflow` reads from each. */
import type { OverflowInfo } from "../../src/model/context_window.ts";

/** One server's overflow wording and the numbers it states. */
export interface OverflowFixture {
  server: string;
  message: string;
  expected: OverflowInfo;
}

const RAW: ReadonlyArray<[string, string, OverflowInfo]> = [
  [
    "OpenAI",
    "This model's maximum context length is 128000 tokens. However, your messages resulted in " +
    "130532 tokens. Please reduce the length of the messages.",
    { window: 128_000, promptTokens: 130_532 },
  ],
  [
    "OpenAI/DeepSeek with a completion",
    "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens " +
    "(7000 in the messages, 2000 in the completion). Please reduce the length of the messages " +
    "or completion.",
    { window: 8192, promptTokens: 7000 },
  ],
  [
    "OpenRouter",
    "This model's maximum context length is 8192 tokens, however you requested 8977 tokens " +
    "(8977 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.",
    { window: 8192, promptTokens: 8977 },
  ],
  [
    "vLLM",
    "This model's maximum context length is 4096 tokens. However, your request has 5000 input " +
    "tokens. Please reduce the length of the input messages.",
    { window: 4096, promptTokens: 5000 },
  ],
  [
    "vLLM with too large an output",
    "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's maximum context " +
    "length is 4096 tokens and your request has 3000 input tokens (2000 > 4096 - 3000).",
    { window: 4096, promptTokens: 3000 },
  ],
  [
    "vLLM 0.11+ with too large an output (vllm/renderers/params.py, vllm-project/vllm#42474)",
    "This model's maximum context length is 128000 tokens. However, you requested 65535 output " +
    "tokens and your prompt contains at least 62466 input tokens, for a total of at least 128001 " +
    "tokens.",
    { window: 128_000, promptTokens: 62_466 },
  ],
  [
    "vLLM's decoder prompt",
    "The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make " +
    "sure that `max_model_len` is no smaller than the number of text tokens.",
    { window: 4096, promptTokens: 5000 },
  ],
  [
    "llama.cpp",
    "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it",
    { window: 4096, promptTokens: 4476 },
  ],
  ["llama.cpp (old)", "the request exceeds the available context size, try increasing it", {}],
  [
    "Ollama",
    "prompt too long; exceeded max context length by 1234 tokens",
    { excessTokens: 1234 },
  ],
  ["Ollama without numbers", "the input length exceeds the context length", {}],
  [
    "LM Studio",
    "Trying to keep the first 5000 tokens when context the overflows. However, the model is " +
    "loaded with context length of only 4096 tokens, which is not enough. Try to load the model " +
    "with a larger context length, or provide a shorter input",
    { window: 4096, promptTokens: 5000 },
  ],
  [
    "Anthropic-compatible",
    "prompt is too long: 210000 tokens > 200000 maximum",
    { window: 200_000, promptTokens: 210_000 },
  ],
  [
    "Mistral",
    "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum " +
    "context length",
    { window: 32_768, promptTokens: 40_000 },
  ],
  [
    "Gemini",
    "The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).",
    { window: 1_048_576, promptTokens: 3_475_108 },
  ],
  [
    "Groq without numbers",
    "Please reduce the length of the messages or completion.",
    {},
  ],
];

/** Every known wording, from OpenAI to Mistral (and a few without numbers). */
export const OVERFLOW_FIXTURES: readonly OverflowFixture[] = RAW.map(
  ([server, message, expected]) => ({ server, message, expected }),
);
