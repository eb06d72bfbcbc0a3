/**
 * The settings of one invocation: flags and config (with the trust question), the workspace, the
 * replay file, the endpoint and the grants, gathered into a RunSetup for print or interactive mode.
 */
import { resolve } from "node:path";
import type { Clock } from "../agent/mod.ts";
import type { ModelClient } from "../model/types.ts";
import type { OpenAiClientOptions } from "../model/openai/mod.ts";
import type { Grants } from "../policy/grants.ts";
import type { GitOps, RewindFs } from "../rewind/mod.ts";
import type { GrantPathOps } from "../policy/ops.ts";
import type { Recording } from "../replay/recording.ts";
import { BUILTIN_TOOL_NAMES, NETWORK_TOOL_NAMES } from "../tools/registry.ts";
import type { Sandbox, SandboxMode, SandboxOptions } from "../sandbox/mod.ts";
import type { McpProcessOps } from "../mcp/mod.ts";
import type { CliFlags } from "./args.ts";
import { resolveSettings, type Settings } from "./config.ts";
import type { OwnCodeOps } from "./mcp_own_code.ts";
import { EXIT, usageError } from "./exit.ts";
import { type CliFs, readTextOrReason, type Terminal, writeMessage } from "./io.ts";
import { openLineSource } from "./line_input.ts";
import type { LineSource } from "./repl.ts";
import { sessionsListing } from "./sessions.ts";
import type { HookCommandRunner } from "../hooks/runner.ts";
import { denoFlagLines, runGrants } from "./permission_set.ts";
import { parseTrustAnswer, type TrustAnswer, trustQuestion, type TrustRequest } from "./trust.ts";
import { PROFILE_NAMES, type ProfileName, profileNamed } from "../model/profiles/mod.ts";

/** What the CLI asks the sandbox for (src/cli/deps.ts adds the spill directory). */
/** What the CLI asks the sandbox for (src/cli/deps.ts adds the spill directory and the effects). */
export type SandboxRequest =
  & Pick<SandboxOptions, "cwd" | "grants" | "env" | "secretEnvNames" | "onDecision" | "prompter">
  & Pick<SandboxOptions, "tools" | "bashTimeoutSec" | "permissionHook">
  & { sandbox: SandboxMode; noPrompt: boolean };

/** The part of the sandbox the CLI uses (createSandbox in src/sandbox/mod.ts). */
export type SandboxHandle =
  & Pick<Sandbox, "tools" | "onToolCall" | "mode" | "warnings" | "grants">
  & Partial<Pick<Sandbox, "confine" | "toolEnv" | "stopJobs" | "listJobs">>
  & {
    /** Kills the tool host and every process group; must not reject. */
    close(): Promise<void>;
  };

/** The outcome of opening the sandbox: a usage-level failure exits 2. */
export type SandboxResult = { ok: true; sandbox: SandboxHandle } | { ok: false; error: string };

/** Effects the CLI delegates; tests substitute them, src/cli/deps.ts supplies the real ones. */
export interface CliDeps {
  createModel(options: OpenAiClientOptions): ModelClient;
  openSandbox(request: SandboxRequest): Promise<SandboxResult>;
  /** Spawns stdio MCP servers (src/sys/mcp.ts); absent: MCP servers cannot start. */
  createMcpProcessOps?(): McpProcessOps;
  /**
   * Runs hook commands for a run's sandbox, with `env` added to the tools' environment;
   * absent: configured hooks are skipped.
   */
  createHookRunner?(sandbox: SandboxHandle, env: Record<string, string>): HookCommandRunner;
  /** What the rewind checkpoints run with (src/rewind/); absent: no checkpoints are taken. */
  rewind?: RewindDeps;
}

/** The effects of the rewind checkpoints: `git` and the index's files. */
export interface RewindDeps {
  git: GitOps;
  fs: RewindFs;
}

/** The default endpoint when neither a flag, the environment nor config names one. */
export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** The error shown when no key and no endpoint are configured (exit 2), in short lines. */
export function noEndpointMessage(apiKeyEnv: string): string {
  const lines = [
    "moat: No model endpoint configured: moat works with any OpenAI-compatible API.",
    `  OpenAI: set ${apiKeyEnv} to your API key${
      apiKeyEnv === "OPENAI_API_KEY" ? " (or name another variable with --api-key-env NAME)" : ""
    }.`,
    "  A local server needs no key: set OPENAI_BASE_URL (or pass --base-url), and --model:",
    "    Ollama     http://localhost:11434/v1",
    "    vLLM       http://localhost:8000/v1",
    "    llama.cpp  http://localhost:8080/v1",
    '  Example: OPENAI_BASE_URL=http://localhost:11434/v1 moat --model qwen2.5-coder "explain this"',
    "  Settings can also live in .moat/config.json or ~/.config/moat/config.json (see --help).",
    "  No model yet? moat --replay FILE replays a recorded session (try moat's examples/tour.jsonl).",
  ];
  return lines.join("\n") + "\n";
}

/** Everything one invocation works with after flags, config and the sandbox are settled. */
export interface RunSetup {
  flags: CliFlags;
  settings: Settings;
  env: Record<string, string>;
  /** The directory moat was started in (before --cwd). */
  startCwd: string;
  workspace: string;
  grants: Grants;
  /** Path look-ups for the MCP servers' own code (src/cli/mcp_own_code.ts); absent: none found. */
  paths?: OwnCodeOps;
  /** What the grants said once on stderr (a new file granted), after the workspace line. */
  grantNotes: readonly string[];
  terminal: Terminal;
  fs: CliFs;
  clock: Clock;
  now: () => Date;
  deps: CliDeps;
  apiKey: string;
  baseUrl: string;
  /** The server family `--provider` or config `provider` names, and which named it. */
  provider?: { name: ProfileName; source: "flag" | "config" };
  /** `--replay`: the recording whose model replies are played back. */
  recording?: Recording;
  /** The terminal's lines (interactive mode and questions); created on first use. */
  lineSource: () => LineSource;
}

/** What prepareRun works with: the resolved effects and the way to load the run's dependencies. */
export interface SetupContext {
  env: Record<string, string>;
  /** The directory moat was started in (before --cwd). */
  cwd: string;
  terminal: Terminal;
  fs: CliFs;
  clock: Clock;
  now: () => Date;
  /** Resolves grant paths (real paths, symlinks followed); lists a directory for a mistyped one. */
  paths: GrantPathOps;
  /** Loads the model client and the sandbox (only once a run is certain). */
  loadDeps: () => Promise<CliDeps>;
  /** Asks the trust question another way than on the terminal (an editor); replaces it. */
  askTrust?: (request: TrustRequest) => Promise<TrustAnswer>;
}

/** A run ready to start in its mode, or the exit code of an invocation that ends here. */
export type Prepared =
  | { setup: RunSetup; interactive: boolean; mcpList?: boolean; doctor?: boolean }
  | { exit: number };

/**
 * Settles a run or `moat sessions`: the workspace, config (asking the trust question), the
 * replay file, the endpoint, the grants and the mode. Usage problems end it with exit 2.
 */
export async function prepareRun(
  command: { command: "run" | "sessions" | "mcp" | "doctor" | "grants"; flags: CliFlags },
  context: SetupContext,
): Promise<Prepared> {
  const { flags } = command;
  const { env, terminal, fs } = context;
  const usage = (message: string) => ({ exit: usageError(terminal, message) });

  const workspaceInput = resolve(context.cwd, flags.cwd ?? ".");
  const workspace = await fs.realPath(workspaceInput);
  if (workspace === null || !(await fs.isDirectory(workspace))) {
    return usage(`The workspace "${workspaceInput}" is not a directory moat can open: fix --cwd`);
  }
  if (command.command === "sessions") {
    writeMessage(terminal, await sessionsListing(fs, { env, workspace }), "stdout");
    return { exit: EXIT.ok };
  }

  // One reader of the terminal's lines, shared by the trust question and interactive mode.
  let lines: LineSource | undefined;
  const lineSource = () => lines ??= openLineSource(terminal, { env, workspace, fs });
  // The trust question needs a person at a terminal; a replay never asks.
  const canAsk = flags.replay === undefined && !flags.noPrompt && terminal.isTty("stdin") &&
    terminal.isTty("stderr");
  const asking: { askTrust?: (request: TrustRequest) => Promise<TrustAnswer> } =
    context.askTrust !== undefined && flags.replay === undefined
      ? { askTrust: context.askTrust }
      : canAsk
      ? { askTrust: (request: TrustRequest) => askTrust(request, terminal, lineSource()) }
      : {};
  const resolved = await resolveSettings(flags, { env, workspace, fs, ...asking });
  if (!resolved.ok) {
    writeMessage(terminal, `moat: ${resolved.error}\n`);
    return { exit: EXIT.usage };
  }
  const settings = resolved.settings;
  const toolNames: readonly string[] = [...BUILTIN_TOOL_NAMES, ...NETWORK_TOOL_NAMES];
  const unknownTools = (settings.tools ?? []).filter((t) => !toolNames.includes(t));
  if (unknownTools.length > 0) {
    return usage(
      `Unknown tool(s) ${unknownTools.map((t) => `"${t}"`).join(", ")}: available are ${
        toolNames.join(", ")
      }`,
    );
  }

  let recording: Recording | undefined;
  if (flags.replay !== undefined) {
    const loaded = await loadRecording(resolve(context.cwd, flags.replay), fs);
    if (!loaded.ok) {
      writeMessage(terminal, `moat: ${loaded.error}\n`);
      return { exit: EXIT.usage };
    }
    recording = loaded.recording;
  }

  const providerName = flags.provider ?? settings.provider;
  const provider = providerName === undefined ? undefined : profileNamed(providerName);
  if (providerName !== undefined && provider === undefined) {
    return usage(`Unknown provider "${providerName}": moat knows ${PROFILE_NAMES.join(", ")}`);
  }

  const grantsResult = await runGrants(flags, {
    settings,
    workspace,
    fs,
    env,
    paths: context.paths,
    ...asking,
  });
  if (!grantsResult.ok) return usage(grantsResult.error);
  if (command.command === "grants") {
    lines?.close();
    for (const note of grantsResult.notes) writeMessage(terminal, `moat: ${note}\n`);
    writeMessage(terminal, denoFlagLines(grantsResult.grants).join("\n") + "\n", "stdout");
    return { exit: EXIT.ok };
  }
  if (grantsResult.show !== undefined) {
    // The repository's word: say what it granted before anything is sent.
    writeMessage(
      terminal,
      `moat: permission set "${grantsResult.show.set}" of "${grantsResult.show.file}" grants:\n` +
        denoFlagLines(grantsResult.grants).map((l) => `  ${l}\n`).join(""),
    );
  }

  const key = env[settings.apiKeyEnv] ?? "";
  // A replay needs no model: its replies come from the recording.
  if (
    command.command === "run" && recording === undefined && key === "" &&
    settings.baseUrl === undefined
  ) {
    writeMessage(terminal, noEndpointMessage(settings.apiKeyEnv));
    return { exit: EXIT.usage };
  }

  // A replay always runs to completion like print mode, even on a terminal.
  const interactive = command.command === "run" && !flags.print && recording === undefined &&
    flags.prompt === undefined && terminal.isTty("stdin");
  // The trust question may have started the line editor: print mode gets the terminal back.
  if (!interactive) lines?.close();
  if (!interactive && flags.resume === true) {
    return usage(
      `Option '--resume' needs a session id or path in print mode: run 'moat sessions' to list them`,
    );
  }
  if (interactive && flags.output !== undefined && flags.output !== "text") {
    return usage(`'--output ${flags.output}' needs print mode: pass a prompt or pipe one on stdin`);
  }

  const setup: RunSetup = {
    flags,
    settings,
    env,
    startCwd: context.cwd,
    workspace,
    grants: grantsResult.grants,
    paths: context.paths,
    grantNotes: grantsResult.notes,
    terminal,
    fs,
    clock: context.clock,
    now: context.now,
    deps: await context.loadDeps(),
    // Local servers need no key; the adapter sends a placeholder.
    apiKey: key,
    baseUrl: settings.baseUrl ?? DEFAULT_BASE_URL,
    lineSource,
  };
  if (recording !== undefined) setup.recording = recording;
  if (provider !== undefined) {
    setup.provider = { name: provider, source: flags.provider === undefined ? "config" : "flag" };
  }
  if (command.command === "doctor") return { setup, interactive, doctor: true };
  return command.command === "mcp" ? { setup, interactive, mcpList: true } : { setup, interactive };
}

/** Asks on the terminal whether to apply an untrusted project's sensitive settings. */
async function askTrust(
  request: TrustRequest,
  terminal: Terminal,
  source: LineSource,
): Promise<TrustAnswer> {
  writeMessage(terminal, trustQuestion(request, request.settings) + " ");
  for (let attempt = 0; attempt < 3; attempt++) {
    const line = await source.next({ fresh: true });
    // A closed input cannot say yes: go on without the settings.
    if (line === null) return "ignore";
    const answer = parseTrustAnswer(line);
    if (answer !== undefined) return answer;
    writeMessage(terminal, "Please answer r (remember), o (once) or i (ignore): ");
  }
  return "ignore";
}

/** Reads and strictly parses a replay file; any problem is a usage error naming the line. */
async function loadRecording(
  path: string,
  fs: CliFs,
): Promise<{ ok: true; recording: Recording } | { ok: false; error: string }> {
  if (await fs.isDirectory(path)) {
    return { ok: false, error: `The replay file "${path}" is a directory: pass a session file` };
  }
  const read = await readTextOrReason(fs, path);
  if ("reason" in read) {
    return {
      ok: false,
      error:
        `Cannot read the replay file "${path}": ${read.reason}: check that it is a file you may read`,
    };
  }
  const text = read.text;
  if (text === null) {
    return {
      ok: false,
      error:
        `The replay file "${path}" does not exist: pass a session file written by moat (see --session)`,
    };
  }
  // Loaded only for a replay, like the rest of the replay's graph.
  const { parseRecording } = await import("../replay/recording.ts");
  const parsed = parseRecording(path, text);
  return parsed.ok ? parsed : { ok: false, error: parsed.error };
}
