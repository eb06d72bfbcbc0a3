/** The model client's options from the settings, and the variables that configure the model. */
import type { OpenAiClientOptions } from "../model/openai/mod.ts";
import type { Settings } from "./config.ts";
import type { RunSetup } from "./setup.ts";

/** The API key variable and every variable that configures the model never reach a tool. */
export function secretEnvNames(settings: Settings): string[] {
  return [
    ...new Set([
      settings.apiKeyEnv,
      "OPENAI_API_KEY",
      "OPENAI_BASE_URL",
      "OPENAI_ORG_ID",
      "OPENAI_PROJECT_ID",
      "MOAT_MODEL",
      "MOAT_BASE_URL",
      "MOAT_API_KEY_ENV",
    ]),
  ];
}

/**
 * The model client's options for `model` (also used by /model in interactive mode); `warn` is
 * told the switches learned from rejected requests.
 */
export function modelClientOptions(
  setup: RunSetup,
  model: string,
  warn?: (message: string) => void,
): OpenAiClientOptions {
  const { settings } = setup;
  const keyEnv = settings.apiKeyEnv;
  const options: OpenAiClientOptions = {
    baseURL: setup.baseUrl,
    apiKey: setup.apiKey,
    model,
    apiKeyHint: setup.apiKey === ""
      ? `set ${keyEnv} to your API key (it is not set), or name another variable with --api-key-env NAME`
      : `check the key in ${keyEnv}, or name another variable with --api-key-env NAME`,
  };
  if (settings.headers !== undefined) options.headers = settings.headers;
  if (setup.provider !== undefined) {
    options.provider = setup.provider.name;
    options.providerSource = setup.provider.source;
  }
  const { vision, structuredOutput: _structured, echoReasoningContent, ...compat } =
    settings.compat ?? {};
  if (Object.keys(compat).length > 0) options.compat = compat;
  if (vision !== undefined) options.vision = vision;
  if (echoReasoningContent !== undefined) options.echoReasoningContent = echoReasoningContent;
  if (warn !== undefined) options.onWarning = warn;
  return options;
}
