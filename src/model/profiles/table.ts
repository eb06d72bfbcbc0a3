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
  // ollama docs/openai.md lists `max_tokens` and `stream_options.include_usage`; a `developer`
  // message is dropped by template models (the system prompt is then silently lost).
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
  sglang: { ...CLASSIC_BUDGET },
  lmstudio: { ...CLASSIC_BUDGET },
  // openrouter.ai/docs/api-reference/parameters: `max_tokens`; other fields pass to the upstream.
  openrouter: { ...CLASSIC_BUDGET },
  // api-docs.deepseek.com: `max_tokens`; roles system/user/assistant/tool only ("unknown variant
  // `developer`, expected one of `system`, `user`, `assistant`, `tool`").
  deepseek: { ...CLASSIC_BUDGET },
  // console.groq.com/docs/openai: `max_completion_tokens`; `store` is not supported.
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
  // docs.anthropic.com/en/api/openai-sdk: `max_tokens` or `max_completion_tokens`; `store` and
  // `strict` are ignored.
  "anthropic-compat": { ...CLASSIC_BUDGET },
  together: { ...CLASSIC_BUDGET },
  fireworks: { ...CLASSIC_BUDGET },
};
