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
import { modelClientOptions } from "./model_options.ts";
import { EXIT } from "./exit.ts";
import type { RunSetup } from "./setup.ts";
import { escapeUnsafe } from "../term/terminal_text.ts";

/** How each way of choosing a profile is told. */
const HOW: Readonly<Record<ProfileReport["detectedBy"], string>> = {
  flag: "chosen with --provider",
  config: 'chosen by the config\'s "provider"',
  url: "detected from the base URL",
  models: "detected from the server's /v1/models",
  props: "detected from llama.cpp's /props",
  default: "nothing identified the server; choose one with --provider NAME",
};

/** Prints what `moat doctor` reports; exit 0. */
export async function doctor(setup: RunSetup): Promise<number> {
  const { terminal } = setup;
  const options = modelClientOptions(setup, setup.settings.model);
  const report = await inspectServer(options);
  const lines = [
    `base URL: ${escapeUnsafe(options.baseURL)}`,
    `model: ${escapeUnsafe(options.model)}`,
    `profile: ${report.profile} (${HOW[report.detectedBy]})`,
  ];
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
  terminal.writeStdout(lines.join("\n") + "\n");
  return EXIT.ok;
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
