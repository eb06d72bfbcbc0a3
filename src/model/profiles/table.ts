/**
 * One profile per server family: the switches (switches.ts) that differ from the defaults, each
 * with the public record it comes from. Pure data.
 */
import type { CompatOverrides } from "./switches.ts";

/** The server families moat knows, as `--provider` and config `provider` name them. */
export const PROFILE_NAMES = [
  "openai",
  "azure",
  "ollama",
  "llamacpp",
  "vllm",
  "sglang",
  "lmstudio",
  "openrouter",
  "deepseek",
  "groq",
  "mistral",
  "gemini",
  "anthropic-compat",
  "together",
  "fireworks",
] as const;

/** One of PROFILE_NAMES, or `generic` for a server nothing identified. */
export type ProfileName = typeof PROFILE_NAMES[number] | "generic";

/** The profile named `text`, or undefined when moat knows no such family. */
export function profileNamed(text: string): ProfileName | undefined {
  const lower = text.trim().toLowerCase();
  const aliases: Record<string, ProfileName> = { "llama.cpp": "llamacpp", "lm-studio": "lmstudio" };
  if (aliases[lower] !== undefined) return aliases[lower];
  if (lower === "generic") return "generic";
  return (PROFILE_NAMES as readonly string[]).includes(lower) ? lower as ProfileName : undefined;
}

/** Servers whose chat templates take only the classic budget field. */
const CLASSIC_BUDGET: CompatOverrides = { maxTokensField: "max_tokens" };

/** What each profile changes from DEFAULT_SWITCHES. */
export const PROFILES: Readonly<Record<ProfileName, CompatOverrides>> = {
  generic: {},
  // platform.openai.com/docs/api-reference/chat: max_tokens is deprecated and not accepted by
  // o-series models; `developer` replaces `system` for them (resolved per model in state.ts).
  openai: {},
  // Azure OpenAI takes the same body; "Unrecognized request argument supplied: X" for fields an
  // older api-version lacks is learned (learn.ts).
  azure: {},
  // ollama openai/openai.go ChatCompletionRequest: `max_tokens` (→ num_predict) and
  // `stream_options`; Go's decoder drops unknown fields, so `max_completion_tokens` would be
  // ignored without an error. A `developer` message is dropped by template models (the system
  // prompt is then silently lost).
  ollama: { ...CLASSIC_BUDGET },
  // llama.cpp tools/server/README.md: `parallel_tool_calls` defaults to false (one call per
  // reply); many GGUF chat templates raise on two user messages in a row, a system message not
  // first, or an assistant message without content ("Conversation roles must alternate").
  llamacpp: {
    ...CLASSIC_BUDGET,
    parallelToolCalls: true,
    alternateRoles: true,
    emptyToolContent: "empty",
  },
  // vLLM entrypoints/openai: rejects a budget over the window minus the prompt ("'max_tokens' or
  // 'max_completion_tokens' is too large: N"), learned and capped (learn.ts).
  vllm: { ...CLASSIC_BUDGET },
  // sglang python/sglang/srt/entrypoints/openai/protocol.py: ChatCompletionRequest takes
  // `max_tokens` (deprecated there) and `max_completion_tokens`, `stream_options` and
  // `parallel_tool_calls` (default true); Pydantic ignores unknown fields, so an older SGLang
  // would drop `max_completion_tokens` silently: the classic field works on all of them.
  sglang: { ...CLASSIC_BUDGET },
  // lmstudio-ai/docs 1_developer/3_openai-compat/chat-completions.md: the supported payload
  // parameters name `max_tokens` only.
  lmstudio: { ...CLASSIC_BUDGET },
  // openrouter.ai/docs/api-reference/parameters: `max_tokens`; other fields pass to the upstream.
  openrouter: { ...CLASSIC_BUDGET },
  // api-docs.deepseek.com: `max_tokens`; roles system/user/assistant/tool only ("unknown variant
  // `developer`, expected one of `system`, `user`, `assistant`, `tool`").
  deepseek: { ...CLASSIC_BUDGET },
  // console.groq.com/docs/openai: 400 for `logprobs`, `logit_bias`, `top_logprobs`,
  // `messages[].name` and `n` other than 1 (moat sends none of them). groq-python
  // completion_create_params.py: `max_completion_tokens` (`max_tokens` deprecated), `store` "not
  // currently supported" (400 "property 'store' is unsupported", left out by default).
  // `stream_options` is accepted today; its 2024 rejection ("property 'stream_options' is
  // unsupported", vercel/ai#1578) would be learned.
  groq: {},
  // docs.mistral.ai/api: 422 "Extra inputs are not permitted" for any field it does not know
  // (stream_options among them); "Tool call id was X but must be a-z, A-Z, 0-9, with a length of
  // 9"; Mistral/Devstral templates need strictly alternating roles.
  mistral: {
    ...CLASSIC_BUDGET,
    streamOptions: false,
    toolCallIds: "alnum9",
    alternateRoles: true,
    emptyToolContent: "empty",
  },
  // ai.google.dev/gemini-api/docs/openai: function parameters are an OpenAPI subset that rejects
  // `$schema` and `additionalProperties`.
  gemini: { ...CLASSIC_BUDGET, stripSchemaKeys: ["$schema", "additionalProperties"] },
  // docs.anthropic.com/en/api/openai-sdk: `max_tokens` and `max_completion_tokens`,
  // `stream_options` and `parallel_tool_calls` fully supported; `store`, `strict` and
  // `response_format` ignored (moat's structured output goes through a tool by default); system
  // and developer messages are hoisted into one system prompt, so roles need no care.
  "anthropic-compat": { ...CLASSIC_BUDGET },
  // togethercomputer/together-python types/chat_completions.py: ChatCompletionRequest has
  // `max_tokens` (no `max_completion_tokens`).
  together: { ...CLASSIC_BUDGET },
  // docs.fireworks.ai/tools-sdks/openai-compatibility: `max_tokens`, lowered to fit the window
  // instead of a 400 (`context_length_exceeded_behavior` "truncate" by default); usage comes in
  // the last chunk of a stream.
  fireworks: { ...CLASSIC_BUDGET },
};
