/**
 * What is known about a model's context window without asking its server for a reply: built-in
 * windows of well-known OpenAI models, the numbers in servers' context-overflow errors, and the
 * window fields of `/v1/models` entries and llama.cpp's `/props`. Pure: no I/O.
 */

/** What a context-overflow error said about the window and the request; each field is optional. */
export interface OverflowInfo {
  /** The model's total context window in tokens. */
  window?: number;
  /** What the server counted for the request's input, in tokens. */
  promptTokens?: number;
  /** How many tokens the request was over the window. */
  excessTokens?: number;
}

interface KnownWindow {
  id: string;
  window: number;
  /** Only this exact id (e.g. "gpt-4" must not cover "gpt-4.5-preview"). */
  exact?: boolean;
}

// Total context (input + output) in tokens, from OpenAI's model pages; dated snapshots share their
// family's window, so most entries match by prefix and the longest matching id wins.
const KNOWN_WINDOWS: readonly KnownWindow[] = [
  { id: "gpt-5", window: 400_000 },
  { id: "gpt-5-chat", window: 128_000 },
  { id: "gpt-4.1", window: 1_047_576 },
  { id: "gpt-4o", window: 128_000 },
  { id: "chatgpt-4o", window: 128_000 },
  { id: "gpt-4-turbo", window: 128_000 },
  { id: "gpt-4-1106", window: 128_000 },
  { id: "gpt-4-0125", window: 128_000 },
  { id: "gpt-4", window: 8_192, exact: true },
  { id: "gpt-4-0613", window: 8_192, exact: true },
  { id: "gpt-4-0314", window: 8_192, exact: true },
  { id: "gpt-4-32k", window: 32_768 },
  { id: "gpt-3.5-turbo", window: 16_385 },
  { id: "o1", window: 200_000 },
  { id: "o1-mini", window: 128_000 },
  { id: "o1-preview", window: 128_000 },
  { id: "o3", window: 200_000 },
  { id: "o4-mini", window: 200_000 },
  { id: "codex-mini", window: 200_000 },
];

/** The built-in context window of a well-known OpenAI model (`openai/` prefixes allowed), or undefined. */
export function knownContextWindow(model: string): number | undefined {
  const id = model.slice(model.lastIndexOf("/") + 1).trim().toLowerCase();
  let best: KnownWindow | undefined;
  for (const known of KNOWN_WINDOWS) {
    const matches = known.exact ? id === known.id : id.startsWith(known.id);
    if (matches && (best === undefined || known.id.length > best.id.length)) best = known;
  }
  return best?.window;
}

// A token count, with or without thousands separators ("128000", "128,000").
const N = String.raw`(\d{1,3}(?:,\d{3})+|\d+)`;

type Field = keyof OverflowInfo;

/** A case-blind wording: regex `source` with the word `N` for each number, and the fields they hold. */
function wording(source: string, ...fields: Field[]): { pattern: RegExp; fields: Field[] } {
  return { pattern: new RegExp(source.replace(/\bN\b/g, N), "i"), fields };
}

// Each wording with the fields its groups hold, in group order. The first pattern that yields a
// field wins it; none of them guesses a field from a number that means something else (e.g. the
// "you requested N tokens" total, which includes the completion).
const WORDINGS: ReadonlyArray<{ pattern: RegExp; fields: readonly Field[] }> = [
  // OpenAI, DeepSeek, OpenRouter, vLLM.
  wording(String.raw`maximum context length is N tokens`, "window"),
  wording(String.raw`your messages resulted in N tokens`, "promptTokens"),
  wording(String.raw`\(N in (?:the messages|your prompt)`, "promptTokens"),
  wording(String.raw`you requested N tokens in the messages`, "promptTokens"),
  wording(String.raw`your request has N input tokens`, "promptTokens"),
  // vLLM 0.11 and later (a lower bound: vLLM stops counting past the window).
  wording(String.raw`your prompt contains at least N input tokens`, "promptTokens"),
  // vLLM.
  wording(
    String.raw`prompt \(length N\) is longer than the maximum model length of N`,
    "promptTokens",
    "window",
  ),
  wording(
    String.raw`prompt \(N tokens\) is too long and exceeds limit of N`,
    "promptTokens",
    "window",
  ),
  // llama.cpp.
  wording(
    String.raw`request \(N tokens\) exceeds the available context size \(N tokens\)`,
    "promptTokens",
    "window",
  ),
  // Ollama.
  wording(String.raw`exceeded max context length by N tokens?`, "excessTokens"),
  // LM Studio.
  wording(
    String.raw`keep the first N tokens[^]*?loaded with context length of only N tokens`,
    "promptTokens",
    "window",
  ),
  // Anthropic-compatible servers.
  wording(String.raw`prompt is too long: N tokens > N maximum`, "promptTokens", "window"),
  // Mistral.
  wording(
    String.raw`prompt contains N tokens[^]*?too large for model with N maximum context length`,
    "promptTokens",
    "window",
  ),
  // Gemini's OpenAI-compatible endpoint.
  wording(
    String.raw`input token count \(N\) exceeds the maximum number of tokens allowed \(N\)`,
    "promptTokens",
    "window",
  ),
  // Hugging Face TGI.
  wording(
    "`inputs` tokens \\+ `max_new_tokens` must be <= N\\. Given: N `inputs` tokens",
    "window",
    "promptTokens",
  ),
];

/** The smallest window taken as real; a smaller number in an error is a misread. */
const MIN_WINDOW = 256;

function trusted(field: Field, value: unknown): value is number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) return false;
  return field === "window" ? value >= MIN_WINDOW : value > 0;
}

/** Whether `value` is a plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The window and token counts a context-overflow error states, from its message and (when given)
 * its JSON error body (`{error: {…}}` or the inner error object; its fields win, e.g. llama.cpp's
 * `n_ctx` and `n_prompt_tokens`). Fields that cannot be trusted are left out.
 */
export function parseOverflow(message: string, body?: unknown): OverflowInfo {
  const info: OverflowInfo = {};
  const error = isRecord(body) && isRecord(body.error) ? body.error : body;
  if (isRecord(error)) {
    if (trusted("window", error.n_ctx)) info.window = error.n_ctx;
    if (trusted("promptTokens", error.n_prompt_tokens)) info.promptTokens = error.n_prompt_tokens;
  }
  for (const { pattern, fields } of WORDINGS) {
    const match = pattern.exec(message);
    if (match === null) continue;
    fields.forEach((field, i) => {
      const value = Number(match[i + 1]?.replaceAll(",", ""));
      if (info[field] === undefined && trusted(field, value)) info[field] = value;
    });
  }
  return info;
}

/** A request whose prompt fits the window but whose output budget does not. */
export interface OutputBudgetInfo {
  /** The model's total context window in tokens. */
  window: number;
  /** What the server counted for the prompt (vLLM: at least this many). */
  promptTokens: number;
  /** The output budget the request asked for (`max_tokens` / `max_completion_tokens`). */
  requestedOutputTokens: number;
  /** The largest budget that fits: `window - promptTokens`. */
  availableOutputTokens: number;
}

// "Maximum context length is N tokens" plus the prompt and the output budget, in group order.
const BUDGET_WORDINGS: ReadonlyArray<{ pattern: RegExp; order: "pc" | "cp" }> = [
  // vLLM before 0.11 and OpenAI: "However, you requested M tokens (P in the messages, C in the
  // completion)"; OpenRouter: "(P in your prompt; C for the completion)", "(P of text input, C
  // in the output)".
  {
    pattern: wording(
      String.raw`you requested (?:about )?N tokens \(N (?:in the messages|in your prompt|` +
        String.raw`of text input)[,;] N (?:in|for) the (?:completion|output)\)`,
    ).pattern,
    order: "pc",
  },
  // vLLM 0.8 to 0.10: "'max_tokens' or 'max_completion_tokens' is too large: C. This model's
  // maximum context length is N tokens and your request has P input tokens (C > N - P)".
  {
    pattern: wording(String.raw`is too large: N\.[^]*?your request has N input tokens`).pattern,
    order: "cp",
  },
  // vLLM 0.11 and later: "However, you requested C output tokens and your prompt contains at
  // least P input tokens".
  {
    pattern: wording(
      String.raw`you requested N output tokens and your prompt contains at least N input tokens`,
    ).pattern,
    order: "cp",
  },
];

/**
 * The window, prompt and output budget of an error that says the prompt fits the window but the
 * prompt plus the requested output does not; undefined when the message says anything else
 * (including a prompt that alone fills the window: that is a real overflow).
 */
export function parseOutputBudget(message: string): OutputBudgetInfo | undefined {
  const window = parseOverflow(message).window;
  if (window === undefined) return undefined;
  for (const { pattern, order } of BUDGET_WORDINGS) {
    const match = pattern.exec(message);
    if (match === null) continue;
    const numbers = match.slice(1).map((n) => Number(n.replaceAll(",", "")));
    const [promptTokens, requested] = order === "pc"
      ? [numbers[numbers.length - 2]!, numbers[numbers.length - 1]!]
      : [numbers[1]!, numbers[0]!];
    if (!trusted("promptTokens", promptTokens) || !trusted("promptTokens", requested)) continue;
    if (promptTokens >= window) return undefined;
    return {
      window,
      promptTokens,
      requestedOutputTokens: requested,
      availableOutputTokens: window - promptTokens,
    };
  }
  return undefined;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/**
 * The context window in one `/v1/models` entry: vLLM `max_model_len`, OpenRouter/Together
 * `context_length`, Groq `context_window`, LM Studio `loaded_context_length` then
 * `max_context_length`, llama.cpp `meta.n_ctx` (not `n_ctx_train`, only the trained maximum).
 */
export function windowFromModelInfo(entry: unknown): number | undefined {
  if (!isRecord(entry)) return undefined;
  return positiveInteger(entry.max_model_len) ??
    positiveInteger(entry.context_length) ??
    positiveInteger(entry.context_window) ??
    positiveInteger(entry.loaded_context_length) ??
    positiveInteger(entry.max_context_length) ??
    (isRecord(entry.meta) ? positiveInteger(entry.meta.n_ctx) : undefined);
}

/** The context window in llama.cpp's `/props`: `default_generation_settings.n_ctx`, else `n_ctx`. */
export function windowFromLlamaProps(props: unknown): number | undefined {
  if (!isRecord(props)) return undefined;
  const settings = props.default_generation_settings;
  return (isRecord(settings) ? positiveInteger(settings.n_ctx) : undefined) ??
    positiveInteger(props.n_ctx);
}
