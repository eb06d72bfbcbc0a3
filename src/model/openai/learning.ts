/**
 * The adapter's side of learning from rejected requests (src/model/profiles/learn.ts): the
 * profile choice from the client's options, the status and text of a failed attempt, and the
 * warning that names the `compat` switch to put in the config.
 */
import OpenAI from "openai";
import type { ModelError } from "../types.ts";
import type {
  CompatOverrides,
  LearnedChange,
  ProfileChoice,
  ProfileState,
} from "../profiles/mod.ts";
import type { WireParams } from "./wire.ts";

/** The profile choice of a client: its provider and `compat`, over the three older options. */
export function profileChoice(options: {
  baseURL: string;
  model: string;
  streamOptions?: boolean;
  maxTokensField?: "max_completion_tokens" | "max_tokens";
  parallelToolCalls?: boolean;
  vision?: boolean;
  provider?: ProfileChoice["provider"];
  providerSource?: ProfileChoice["providerSource"];
  compat?: CompatOverrides;
}): ProfileChoice {
  const overrides: CompatOverrides = {};
  if (options.streamOptions !== undefined) overrides.streamOptions = options.streamOptions;
  if (options.maxTokensField !== undefined) overrides.maxTokensField = options.maxTokensField;
  if (options.parallelToolCalls !== undefined) {
    overrides.parallelToolCalls = options.parallelToolCalls;
  }
  if (options.vision !== undefined) overrides.vision = options.vision;
  Object.assign(overrides, options.compat);
  return {
    baseURL: options.baseURL,
    model: options.model,
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.providerSource === undefined ? {} : { providerSource: options.providerSource }),
    overrides,
  };
}

/**
 * The switch change a failed attempt teaches `profile` (applied to it), or undefined. The text
 * matched is the mapped message with the SDK's own and its parsed error body (Pydantic's `loc`).
 */
export function learnFromAttempt(
  profile: ProfileState,
  error: unknown,
  mapped: ModelError,
  params: WireParams,
): LearnedChange | undefined {
  const status = error instanceof OpenAI.APIError ? error.status : mapped.status;
  const parts = [mapped.message];
  if (error instanceof OpenAI.APIError) {
    parts.push(error.message);
    if (error.error !== undefined) parts.push(JSON.stringify(error.error));
  }
  const budgetSent = (params.max_tokens ?? params.max_completion_tokens ?? null) !== null;
  const imagesSent = params.messages.some((m) =>
    Array.isArray(m.content) && m.content.some((part) => part.type === "image_url")
  );
  return profile.learn(status, parts.join("\n"), budgetSent, imagesSent);
}

/** The warning of a learned switch: what the server rejected and the config that avoids it. */
export function learnedWarning(learned: LearnedChange, status: number | undefined): string {
  const config = JSON.stringify({ compat: learned.change });
  return `The server rejected ${learned.rejected}${
    status === undefined ? "" : ` (HTTP ${status})`
  }: moat sent the request again with ${config}; put that in the config to skip the failed request`;
}
