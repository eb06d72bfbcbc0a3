/**
 * Learning from a rejected request: a 400/422 whose message names a request field, the
 * `developer` role or a budget, a rejection of images by a text-only model, or a strict chat
 * template's refusal of the roles' order, is matched to the switch that avoids it. Pure over (status,
 * message text); the adapter applies the change once per cause and sends the request again.
 */
import type { CompatOverrides, CompatSwitches } from "./switches.ts";

/** A switch change learned from an error, and why. */
export interface LearnedChange {
  /** The switches to change. */
  change: CompatOverrides;
  /** One per cause: a request is sent again at most once for each. */
  cause: string;
  /** What the server rejected, for the user: `stream_options`, `developer` role, … */
  rejected: string;
}

/** The switch change that drops or replaces each request field a server may reject. */
const FIELD_CHANGES: Readonly<Record<string, (s: CompatSwitches) => CompatOverrides | undefined>> =
  {
    stream_options: (s) => s.streamOptions ? { streamOptions: false } : undefined,
    parallel_tool_calls: (s) =>
      s.parallelToolCalls === "omit" ? undefined : { parallelToolCalls: "omit" },
    store: (s) => s.store === "omit" ? undefined : { store: "omit" },
    strict: (s) => s.strict === "omit" ? undefined : { strict: "omit" },
    max_completion_tokens: (s) =>
      s.maxTokensField === "max_completion_tokens" ? { maxTokensField: "max_tokens" } : undefined,
    // OpenAI's reasoning models: "Unsupported parameter: 'max_tokens' is not supported with this
    // model. Use 'max_completion_tokens' instead."
    max_tokens: (s) =>
      s.maxTokensField === "max_tokens" ? { maxTokensField: "max_completion_tokens" } : undefined,
  };

/** Words servers use when they do not take a field. */
const REJECTS =
  /unrecognized|unknown|unsupported|not supported|not permitted|not allowed|extra|invalid|unexpected/i;

/** The request field a rejection names, by the wordings servers use. */
function rejectedField(message: string): string | undefined {
  // Azure OpenAI: "Unrecognized request argument supplied: stream_options".
  const azure = /Unrecognized request arguments? supplied:\s*([a-z_]+)/i.exec(message);
  if (azure) return azure[1]!.toLowerCase();
  // Pydantic (Mistral, vLLM before 0.10.1, FastAPI apps): "Extra inputs are not permitted" with
  // `"loc":["body","stream_options"]` or `('body', 'stream_options')`.
  const loc = /loc['"]?\s*[:=]?\s*[[(]\s*['"]body['"]\s*,\s*['"]([a-z_]+)['"]/i.exec(message);
  if (loc && /extra|not permitted/i.test(message)) return loc[1]!.toLowerCase();
  if (!REJECTS.test(message)) return undefined;
  // The field named first wins ("'max_tokens' is not supported … Use 'max_completion_tokens'").
  let first: { field: string; at: number } | undefined;
  for (const field of Object.keys(FIELD_CHANGES)) {
    // Quoted (`'store'`, "store", `store`), after "parameter"/"argument", or a bare snake_case name.
    const named = new RegExp(
      `['"\`]${field}['"\`]|(?:parameter|argument|field|name)s?:?\\s+${field}\\b` +
        (field.includes("_") ? `|\\b${field}\\b` : ""),
      "i",
    ).exec(message);
    if (named && (first === undefined || named.index < first.at)) {
      first = { field, at: named.index };
    }
  }
  if (first !== undefined) return first.field;
  return undefined;
}

/**
 * A text-only model's rejection of images: llama.cpp without `--mmproj` ("image input is not
 * supported - hint: if this is unexpected, you may need to provide the mmproj", HTTP 500 or 400),
 * Ollama ("this model is missing data required for image input"), vLLM ("… is not a multimodal
 * model").
 */
const NO_VISION =
  /image input is not supported|missing data required for image input|is not a multimodal model/i;

/**
 * A strict chat template's refusal of the roles' order: the Hugging Face/GGUF templates ("After the
 * optional system message, conversation roles must alternate user/assistant/user/assistant/...",
 * a 500 from llama.cpp, a 400 from vLLM) and mistral-common ("Unexpected role 'user' after role
 * 'tool'", Mistral's API and vLLM's mistral tokenizer mode).
 */
const ROLE_ORDER =
  /roles must alternate|unexpected role '?\w+'? after role|system message must be (?:first|at the beginning)/i;

/**
 * The largest budget a "too large" rejection allows: vLLM's "'max_tokens' or
 * 'max_completion_tokens' is too large: 2000. This model's maximum context length is 4096 tokens
 * and your request has 3000 input tokens (2000 > 4096 - 3000)", its newer "maximum context length
 * is 128000 tokens. However, you requested 65535 output tokens and your prompt contains at least
 * 62466 input tokens", and OpenAI's "max_tokens is too large: 100000. This model supports at most
 * 16384 completion tokens". Undefined when the prompt alone fills the window (an overflow).
 */
function budgetCap(message: string): number | undefined {
  const num = (s: string | undefined) => s === undefined ? NaN : Number(s.replace(/,/g, ""));
  const atMost = /supports at most ([\d,]+) completion tokens/i.exec(message);
  if (/max_(?:completion_)?tokens/i.test(message) && /too large/i.test(message) && atMost) {
    return num(atMost[1]);
  }
  const window = /maximum context length is ([\d,]+) tokens/i.exec(message);
  const input = /(?:request has|prompt contains at least|prompt contains) ([\d,]+) input tokens/i
    .exec(message);
  const asked = /too large|you requested [\d,]+ output tokens/i.test(message);
  if (!window || !input || !asked) return undefined;
  const cap = num(window[1]) - num(input[1]);
  return Number.isFinite(cap) && cap > 0 ? cap : undefined;
}

/**
 * The switch change that answers a rejected request, or undefined: only HTTP 400/422 (and the
 * 500 of images to a text-only model or of a template's role order), and only when the change differs from `current` (a switch
 * already off cannot be the cause). `budgetSent` and `imagesSent` say whether the request carried
 * an output budget and an image.
 */
export function learnFromError(
  status: number | undefined,
  message: string,
  current: CompatSwitches,
  budgetSent: boolean,
  imagesSent = false,
): LearnedChange | undefined {
  if (status !== 400 && status !== 422 && status !== 500) return undefined;
  if (imagesSent && current.vision && NO_VISION.test(message)) {
    return { change: { vision: false }, cause: "vision", rejected: "images (a text-only model)" };
  }
  // The same templates also refuse an assistant message whose content is null.
  const strict = !current.alternateRoles || current.emptyToolContent !== "empty";
  if (strict && ROLE_ORDER.test(message)) {
    return {
      change: { alternateRoles: true, emptyToolContent: "empty" },
      cause: "alternateRoles",
      rejected: "the order of the roles (a strict chat template)",
    };
  }
  if (status === 500) return undefined;
  // DeepSeek: "messages[0].role: unknown variant `developer`, expected one of `system`, …".
  if (
    current.systemRole === "developer" && /developer/i.test(message) &&
    /role|variant/i.test(message)
  ) {
    return { change: { systemRole: "system" }, cause: "developer", rejected: "the developer role" };
  }
  if (budgetSent) {
    const cap = budgetCap(message);
    if (cap !== undefined && (current.maxTokensCap === 0 || cap < current.maxTokensCap)) {
      return {
        change: { maxTokensCap: cap },
        cause: `budget:${cap}`,
        rejected: "the output budget",
      };
    }
  }
  const field = rejectedField(message);
  if (field === undefined) return undefined;
  const change = FIELD_CHANGES[field]?.(current);
  if (change === undefined) return undefined;
  return { change, cause: field, rejected: `the field "${field}"` };
}
