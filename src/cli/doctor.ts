/**
 * `moat doctor`: the endpoint, the server profile in force and how it was chosen, and every
 * request switch with where its value comes from; `--verbose` shows the profile in one line at
 * the start of a run.
 */
import {
  inspectServer,
  type ProfileReport,
  SWITCH_NAMES,
  switchText,
} from "../model/openai/mod.ts";
import { ProfileState } from "../model/profiles/mod.ts";
import type { ModelError } from "../model/types.ts";
import { modelClientOptions } from "./model_options.ts";
import { EXIT } from "./exit.ts";
import { writeMessage } from "./io.ts";
import type { RunSetup } from "./setup.ts";
import { escapeUnsafe } from "../term/terminal_text.ts";

/** How each way of choosing a profile is told. */
const HOW: Readonly<Record<ProfileReport["detectedBy"], string>> = {
  flag: "chosen with --provider",
  config: 'chosen by the config\'s "provider"',
  url: "detected from the base URL",
  models: "detected from the server's /v1/models",
  props: "detected from llama.cpp's /props",
  "ollama-version": "detected from Ollama's /api/version",
  default: "nothing identified the server; choose one with --provider NAME",
};

/**
 * Prints what `moat doctor` reports; exit 0, or 1 (as a run that cannot reach its model) when the
 * server could not be reached or did not answer `/v1/models`.
 */
export async function doctor(setup: RunSetup): Promise<number> {
  const { terminal } = setup;
  const options = modelClientOptions(setup, setup.settings.model);
  const report = await inspectServer(options);
  const failure = report.failure;
  const how = failure !== undefined && report.detectedBy === "default"
    ? "the server could not be asked; choose one with --provider NAME"
    : HOW[report.detectedBy];
  const lines = [
    `base URL: ${escapeUnsafe(options.baseURL)}`,
    `model: ${escapeUnsafe(options.model)}`,
    `profile: ${report.profile} (${how})`,
  ];
  if (report.ollamaVersion !== undefined) {
    lines.push(`server: Ollama ${escapeUnsafe(report.ollamaVersion)}`);
  }
  if (report.window !== undefined) lines.push(`context window: ${report.window} (the server's)`);
  lines.push('switches (set any of them in the config\'s "compat"):');
  const width = Math.max(...SWITCH_NAMES.map((n) => n.length));
  for (const name of SWITCH_NAMES) {
    lines.push(
      `  ${name.padEnd(width)}  ${escapeUnsafe(switchText(report.switches[name]))}  (${
        report.sources[name]
      })`,
    );
  }
  writeMessage(terminal, lines.join("\n") + "\n", "stdout");
  if (failure === undefined) return EXIT.ok;
  writeMessage(terminal, `moat: ${escapeUnsafe(failureText(failure, setup))}\n`);
  return EXIT.modelError;
}

/** What `/v1/models` failing means, and what to check next (the error names the detail). */
function failureText(failure: ModelError, setup: RunSetup): string {
  // toModelError's message names the server, the cause and the key variable to check.
  const url = `"${setup.baseUrl}"`;
  switch (failure.kind) {
    case "network":
      // "Could not reach the model server at …: <why>. Check the base URL and that …"
      return `${failure.message} Set the base URL with --base-url URL (or OPENAI_BASE_URL, or ` +
        `the config's "baseUrl"); the profile above is what the URL or --provider gives, ` +
        "unchecked.";
    case "auth":
      return `The server at ${url} rejected the API key when asked for /v1/models: ` +
        `${failure.message} If the key is right, check that the base URL is the key's server.`;
    default:
      return `The server at ${url} did not answer /v1/models: ${failure.message} Check the ` +
        "base URL; a server without /v1/models still works when --provider NAME names its " +
        "family.";
  }
}

/** The `--verbose` start line: the profile the URL or the choice gives (no request is made). */
export function profileLine(setup: RunSetup): string {
  const options = modelClientOptions(setup, setup.settings.model);
  const state = new ProfileState({
    baseURL: options.baseURL,
    model: options.model,
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.providerSource === undefined ? {} : { providerSource: options.providerSource }),
    ...(options.compat === undefined ? {} : { overrides: options.compat }),
  });
  const report = state.report();
  const how = report.detectedBy === "default"
    ? "until the server's /v1/models names it"
    : HOW[report.detectedBy];
  return `server profile: ${report.profile} (${how}; moat doctor lists its switches)`;
}
