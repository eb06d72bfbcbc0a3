/**
 * The moat command: argv/env in, exit code out. Wires flags and config, the model client, the
 * sandboxed tools, the system prompt, sessions and the output modes around the agent loop.
 *
 * Exit codes: 0 completed · 1 model/provider error · 2 usage/config error or required sandbox
 * unavailable · 3 max turns reached · 4 denied calls with --fail-on-deny · 5 --replay-check found a
 * difference · 130 SIGINT · 143 SIGTERM.
 */
import { dirname, resolve } from "node:path";
import {
  type AgentEvent,
  type AgentRunResult,
  type Clock,
  type OnToolCall,
  runAgentLoop,
} from "../agent/mod.ts";
import { type ModelClient, ModelError, type UserMessage } from "../model/types.ts";
import type { OpenAiClientOptions } from "../model/openai/mod.ts";
import type { Prompter } from "../policy/approve.ts";
import type { PermissionDecision } from "../policy/check.ts";
import { formatGrants, type Grants, parseGrantFlags } from "../policy/grants.ts";
import {
  createSessionWriter,
  findLatestSession,
  SESSION_FORMAT_VERSION,
  sessionDirectory,
  sessionFileName,
  type SessionHeader,
  type SessionWriter,
  stateHome,
} from "../session/store.ts";
import type { ToolHostIo } from "../sandbox/host/server.ts";
import { parseRecording, type RecordedReply, type Recording } from "../session/recording.ts";
import { BUILTIN_TOOL_NAMES } from "../tools/registry.ts";
import type { AnyTool } from "../tools/types.ts";
import { VERSION } from "../version.ts";
import { resumeSession } from "../session/repair.ts";
import { type CliFlags, helpText, type SandboxMode } from "./args.ts";
import { parseCommand, resolveResume, resumeBanner, sessionsListing } from "./sessions.ts";
import { costOf, usageLine } from "./usage.ts";
import {
  DEFAULT_PRINT_MAX_TURNS,
  resolveSettings,
  type Settings,
  userConfigDir,
} from "./config.ts";
import { type CliFs, type CliSignal, readTextOrReason, type Terminal } from "./io.ts";
import { createJsonlReporter, createJsonReporter } from "./jsonl.ts";
import { createTextRenderer, useColor } from "./render.ts";
import { openLineSource } from "./line_input.ts";
import { createReplPrompter, type LineSource, runRepl } from "./repl.ts";
import { createRelocation, replayRecording } from "./replay.ts";
import { createReplayChecker } from "./replay_check.ts";
import {
  createRunStats,
  type ReplaySummary,
  type Reporter,
  resultText,
  type RunError,
  type RunStats,
  type RunStopReason,
  type RunSummary,
} from "./report.ts";
import { buildSystemPrompt, loadContextFiles } from "./system_prompt.ts";
import { parseTrustAnswer, type TrustAnswer, trustQuestion, type TrustRequest } from "./trust.ts";

/** Exit codes of the moat command. */
export const EXIT = {
  ok: 0,
  modelError: 1,
  usage: 2,
  maxTurns: 3,
  denied: 4,
  replayMismatch: 5,
  sigint: 130,
  sigterm: 143,
} as const;

/** The default endpoint when neither a flag, the environment nor config names one. */
export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** What the CLI asks the sandbox for (src/cli/deps.ts adds the spill directory). */
export interface SandboxRequest {
  cwd: string;
  grants: Grants;
  sandbox: SandboxMode;
  /** The full process environment (the sandbox passes tools only the allowed part). */
  env: Record<string, string>;
  /** Variables that must never reach a tool (the API key variable, …). */
  secretEnvNames: string[];
  /** `--tools`; default all built-in tools. */
  tools?: string[];
  bashTimeoutSec?: number;
  /** Asks the user about ungranted calls; absent = deny them (print mode). */
  prompter?: Prompter;
  noPrompt: boolean;
  onDecision?: (decision: PermissionDecision) => void;
}

/** The part of the sandbox the CLI uses (createSandbox in src/sandbox/mod.ts). */
export interface SandboxHandle {
  tools: AnyTool[];
  onToolCall: OnToolCall;
  mode: string;
  warnings: string[];
  /** The effective grants (widened by "always" approvals). */
  readonly grants: Grants;
  /** Kills the tool host and every process group; must not reject. */
  close(): Promise<void>;
}

/** The outcome of opening the sandbox: a usage-level failure exits 2. */
export type SandboxResult = { ok: true; sandbox: SandboxHandle } | { ok: false; error: string };

/** Effects the CLI delegates; tests substitute them, src/cli/deps.ts supplies the real ones. */
export interface CliDeps {
  createModel(options: OpenAiClientOptions): ModelClient;
  openSandbox(request: SandboxRequest): Promise<SandboxResult>;
  runToolHost(argv: string[], io: ToolHostIo): Promise<number>;
  toolHostIo(): ToolHostIo;
}

/** What runCli needs from the outside world; everything but env/cwd has a Deno default. */
export interface CliEnvironment {
  env: Record<string, string>;
  cwd: string;
  terminal?: Terminal;
  fs?: CliFs;
  clock?: Clock;
  now?: () => Date;
  deps?: Partial<CliDeps>;
}

/** The one-paragraph error shown when no key and no endpoint are configured (exit 2). */
export function noEndpointMessage(apiKeyEnv: string): string {
  return `moat: No model endpoint configured. moat works with any OpenAI-compatible API. ` +
    `For OpenAI, set ${apiKeyEnv} to your API key${
      apiKeyEnv === "OPENAI_API_KEY" ? " (or name another variable with --api-key-env NAME)" : ""
    }. For a local server, set OPENAI_BASE_URL or pass --base-url, and choose a model with ` +
    `--model: Ollama http://localhost:11434/v1, vLLM http://localhost:8000/v1, llama.cpp ` +
    `server http://localhost:8080/v1 (local servers need no key). Example: ` +
    `OPENAI_BASE_URL=http://localhost:11434/v1 moat --model qwen2.5-coder "explain this repo". ` +
    `Settings can also live in .moat/config.json or ~/.config/moat/config.json (see --help). ` +
    `To see moat work without a model, replay a recorded session: moat --replay FILE (a clone ` +
    `of the repository has examples/tour.jsonl).\n`;
}

/** Runs the moat command; returns the process exit code. Must not throw. */
export async function runCli(argv: string[], environment: CliEnvironment): Promise<number> {
  if (argv[0] === "__tool-host") {
    // The sandbox's tool host process: keep its start-up lean (no model client, no config).
    const runToolHost = environment.deps?.runToolHost ??
      (await import("../sandbox/host/main.ts")).runToolHost;
    const io = environment.deps?.toolHostIo?.() ??
      (await import("../sys/terminal.ts")).createDenoToolHostIo();
    return await runToolHost(argv.slice(1), io);
  }
  const terminal = environment.terminal ??
    (await import("../sys/terminal.ts")).createDenoTerminal();
  try {
    const fs = environment.fs ?? (await import("../sys/session_fs.ts")).createDenoCliFs();
    // Loaded only for a run: --help, --version and usage errors need no model or sandbox code.
    const loadDeps = async () =>
      ({ ...await defaultDeps(environment.deps, fs), ...environment.deps }) as CliDeps;
    return await runCommand(argv, { ...environment, fs }, terminal, loadDeps);
  } catch (e) {
    // A bug, not bad input: say so plainly, without a stack trace unless asked for.
    terminal.writeStderr(
      `moat: internal error: ${e instanceof Error ? e.message : String(e)}\n` +
        `This is a bug in moat; please report it${
          environment.env.MOAT_DEBUG ? "" : " (MOAT_DEBUG=1 shows the stack)"
        }.\n`,
    );
    if (environment.env.MOAT_DEBUG && e instanceof Error && e.stack) {
      terminal.writeStderr(e.stack + "\n");
    }
    return EXIT.modelError;
  } finally {
    // A line editor (interactive mode, the trust question) leaves the terminal as it found it.
    terminal.release?.();
  }
}

async function defaultDeps(given: Partial<CliDeps> | undefined, fs: CliFs): Promise<CliDeps> {
  if (
    given?.createModel && given.openSandbox && given.runToolHost && given.toolHostIo
  ) return given as CliDeps;
  return (await import("./deps.ts")).createDefaultDeps(fs);
}

/** Everything one invocation works with after flags, config and the sandbox are settled. */
interface RunSetup {
  flags: CliFlags;
  settings: Settings;
  env: Record<string, string>;
  /** The directory moat was started in (before --cwd). */
  startCwd: string;
  workspace: string;
  grants: Grants;
  terminal: Terminal;
  fs: CliFs;
  clock: Clock;
  now: () => Date;
  deps: CliDeps;
  apiKey: string;
  baseUrl: string;
  /** `--replay`: the recording whose model replies are played back. */
  recording?: Recording;
  /** The terminal's lines (interactive mode and questions); created on first use. */
  lineSource: () => LineSource;
}

async function runCommand(
  argv: string[],
  environment: CliEnvironment,
  terminal: Terminal,
  loadDeps: () => Promise<CliDeps>,
): Promise<number> {
  const usage = (message: string) => {
    terminal.writeStderr(`moat: ${message}\nRun 'moat --help' for usage.\n`);
    return EXIT.usage;
  };
  const parsed = parseCommand(argv);
  if (!parsed.ok) return usage(parsed.error);
  if (parsed.command === "help") {
    terminal.writeStdout(helpText(VERSION));
    return EXIT.ok;
  }
  if (parsed.command === "version") {
    terminal.writeStdout(`moat ${VERSION}\n`);
    return EXIT.ok;
  }
  const flags = parsed.flags;
  const env = environment.env;
  const fs = environment.fs ?? (await import("../sys/session_fs.ts")).createDenoCliFs();
  const now = environment.now ?? (() => new Date());
  const clock = environment.clock ?? (await import("../sys/clock.ts")).systemClock;

  const workspaceInput = resolve(environment.cwd, flags.cwd ?? ".");
  const workspace = await fs.realPath(workspaceInput);
  if (workspace === null || !(await fs.isDirectory(workspace))) {
    return usage(`The workspace "${workspaceInput}" is not a directory moat can open: fix --cwd`);
  }
  if (parsed.command === "sessions") {
    terminal.writeStdout(await sessionsListing(fs, { env, workspace }));
    return EXIT.ok;
  }

  // One reader of the terminal's lines, shared by the trust question and interactive mode.
  let lines: LineSource | undefined;
  const lineSource = () => lines ??= openLineSource(terminal, { env, workspace, fs });
  // The trust question needs a person at a terminal; a replay never asks.
  const canAsk = flags.replay === undefined && !flags.noPrompt && terminal.isTty("stdin") &&
    terminal.isTty("stderr");
  const resolved = await resolveSettings(flags, {
    env,
    workspace,
    fs,
    ...(canAsk ? { askTrust: (request) => askTrust(request, terminal, lineSource()) } : {}),
  });
  if (!resolved.ok) {
    terminal.writeStderr(`moat: ${resolved.error}\n`);
    return EXIT.usage;
  }
  const settings = resolved.settings;
  const unknownTools = (settings.tools ?? []).filter(
    (t) => !(BUILTIN_TOOL_NAMES as readonly string[]).includes(t),
  );
  if (unknownTools.length > 0) {
    return usage(
      `Unknown tool(s) ${unknownTools.map((t) => `"${t}"`).join(", ")}: available are ${
        BUILTIN_TOOL_NAMES.join(", ")
      }`,
    );
  }

  let recording: Recording | undefined;
  if (flags.replay !== undefined) {
    const loaded = await loadRecording(resolve(environment.cwd, flags.replay), fs);
    if (!loaded.ok) {
      terminal.writeStderr(`moat: ${loaded.error}\n`);
      return EXIT.usage;
    }
    recording = loaded.recording;
  }

  const key = env[settings.apiKeyEnv] ?? "";
  // A replay needs no model: its replies come from the recording.
  if (recording === undefined && key === "" && settings.baseUrl === undefined) {
    terminal.writeStderr(noEndpointMessage(settings.apiKeyEnv));
    return EXIT.usage;
  }

  const grantsResult = parseGrantFlags(flags.permissions, {
    cwd: workspace,
    ...(env.HOME === undefined || env.HOME === "" ? {} : { home: env.HOME }),
  });
  if (!grantsResult.ok) return usage(grantsResult.error.message);

  // A replay always runs to completion like print mode, even on a terminal.
  const interactive = !flags.print && recording === undefined && flags.prompt === undefined &&
    terminal.isTty("stdin");
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
    startCwd: environment.cwd,
    workspace,
    grants: grantsResult.grants,
    terminal,
    fs,
    clock,
    now,
    deps: await loadDeps(),
    // Local servers need no key; the adapter sends a placeholder.
    apiKey: key,
    baseUrl: settings.baseUrl ?? DEFAULT_BASE_URL,
    lineSource,
  };
  if (recording !== undefined) setup.recording = recording;
  return interactive ? await interactiveMode(setup) : await printMode(setup);
}

/** Asks on the terminal whether to apply an untrusted project's sensitive settings. */
async function askTrust(
  request: TrustRequest,
  terminal: Terminal,
  source: LineSource,
): Promise<TrustAnswer> {
  terminal.writeStderr(trustQuestion(request, request.settings) + " ");
  for (let attempt = 0; attempt < 3; attempt++) {
    const line = await source.next({ fresh: true });
    // A closed input cannot say yes: go on without the settings.
    if (line === null) return "ignore";
    const answer = parseTrustAnswer(line);
    if (answer !== undefined) return answer;
    terminal.writeStderr("Please answer r (remember), o (once) or i (ignore): ");
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
  const parsed = parseRecording(path, text);
  return parsed.ok ? parsed : { ok: false, error: parsed.error };
}

/** How long a prompt argument waits for the first byte of a piped stdin before going on without it. */
export const STDIN_GRACE_MS = 2000;

/** The prompt of print mode: the argument, stdin, or both (stdin attached after the prompt). */
async function readPrintPrompt(
  setup: RunSetup,
): Promise<{ prompt: string; warning?: string } | { error: string }> {
  const { flags, terminal } = setup;
  if (terminal.isTty("stdin")) {
    if (flags.prompt === undefined) {
      return { error: "No prompt: pass one as an argument or pipe it on stdin" };
    }
    return { prompt: flags.prompt };
  }
  // With a prompt argument, a stdin nobody writes to (common in CI) must not hang the run.
  const input = await terminal.readStdin({
    maxBytes: MAX_STDIN_BYTES,
    ...(flags.prompt === undefined ? {} : { firstChunkTimeoutMs: STDIN_GRACE_MS }),
  });
  const stdin = input === null ? null : input.text;
  const cut = input?.truncated === true ? stdinTruncation() : undefined;
  const withCut = (prompt: string) =>
    cut === undefined ? { prompt } : { prompt, warning: cut.warning };
  if (flags.prompt === undefined) {
    const piped = (stdin ?? "").replace(/\r?\n$/, "");
    if (piped.trim() === "") return { error: "No prompt: stdin was empty" };
    return withCut(cut === undefined ? piped : `${piped}\n\n${cut.note}`);
  }
  if (stdin === null) {
    return {
      prompt: flags.prompt,
      warning:
        `Nothing arrived on stdin within ${
          STDIN_GRACE_MS / 1000
        } s, so it was not attached to the prompt. To attach a slow command's output, save it ` +
        `first (cmd > out.txt; moat "…" < out.txt); to skip stdin, use < /dev/null`,
    };
  }
  if (stdin.trim() === "") return { prompt: flags.prompt };
  const attached = `${stdin.replace(/\n$/, "")}${cut === undefined ? "" : `\n${cut.note}`}`;
  return withCut(`${flags.prompt}\n\n<stdin>\n${attached}\n</stdin>`);
}

/** Most bytes of piped stdin read into the prompt (more than any model's context holds). */
export const MAX_STDIN_BYTES = 4 * 1024 * 1024;

function stdinTruncation(): { note: string; warning: string } {
  const size = `${MAX_STDIN_BYTES / 1024 / 1024} MiB`;
  return {
    note: `[stdin was cut: only its first ${size} are included]`,
    warning: `stdin is larger than ${size}; only its first ${size} were sent to the model. ` +
      `To work on a bigger input, save it to a file in the workspace and ask moat to read it`,
  };
}

/** Opens (or creates) the session of this run; null when sessions are off. */
async function openSession(
  setup: RunSetup,
  warn: (message: string) => void,
): Promise<
  | { ok: true; writer: SessionWriter | null; history: import("../model/types.ts").Message[] }
  | { ok: false; error: string }
> {
  const { flags, fs, workspace } = setup;
  if (flags.noSession) return { ok: true, writer: null, history: [] };
  const header = (): SessionHeader => ({
    type: "session",
    version: SESSION_FORMAT_VERSION,
    moatVersion: VERSION,
    createdAt: setup.now().toISOString(),
    cwd: workspace,
    model: setup.recording?.header.model ?? setup.settings.model,
    grants: setup.grants,
    ...(setup.env.HOME === undefined || setup.env.HOME === "" ? {} : { home: setup.env.HOME }),
    ...(setup.recording === undefined ? {} : { replayOf: setup.recording.path }),
  });
  const onError = (message: string) => warn(message);
  let path: string | null = null;
  if (flags.session !== undefined) {
    // Relative to where moat was started, like any path argument of a command.
    path = resolve(setup.startCwd, flags.session);
  } else if (flags.resume !== undefined) {
    const found = await resolveResume(flags.resume, {
      fs,
      env: setup.env,
      workspace,
      startCwd: setup.startCwd,
      warn,
      // Only interactive mode gets here with a bare --resume (print mode needs a value).
      picker: {
        write: (text) => setup.terminal.writeStdout(text),
        // An answer to a question asked now (not a prompt to remember).
        readLine: () => setup.lineSource().next({ fresh: true }),
      },
    });
    if (!found.ok) return found;
    path = found.path;
  } else if (flags.continue) {
    const state = stateHome(setup.env);
    if (state !== undefined) {
      path = await findLatestSession(fs, await sessionDirectory(state, workspace));
    }
    if (path === null) warn("No earlier session for this workspace; starting a new one");
  }
  let existing: string | null = null;
  if (path !== null) {
    if (await fs.isDirectory(path)) {
      return {
        ok: false,
        error: `The session path "${path}" is a directory: pass a file path to --session`,
      };
    }
    const read = await readTextOrReason(fs, path);
    if ("reason" in read) {
      return { ok: false, error: `Cannot read the session file "${path}": ${read.reason}` };
    }
    // An empty file (from touch or mktemp) starts a new session in it.
    existing = read.text?.trim() === "" ? null : read.text;
  }
  if (
    path !== null && existing !== null && setup.recording !== undefined
  ) {
    return {
      ok: false,
      error:
        `The session file "${path}" already holds a conversation, but a replay starts from the recording's own: pass a new file to --session, or --no-session`,
    };
  }
  if (path !== null && existing !== null) {
    const loaded = await resumeSession(fs, path, existing);
    if (!loaded.ok) return loaded;
    for (const w of loaded.session.warnings) warn(w);
    return {
      ok: true,
      history: loaded.session.messages,
      writer: createSessionWriter(fs, path, { needsNewline: loaded.session.needsNewline, onError }),
    };
  }
  if (path === null) {
    const state = stateHome(setup.env);
    if (state === undefined) {
      warn("Neither XDG_STATE_HOME nor HOME is set: this session is not saved");
      return { ok: true, writer: null, history: [] };
    }
    const dir = await sessionDirectory(state, workspace);
    const suffix = Math.floor(Math.random() * 0xffff).toString(16).padStart(4, "0");
    path = `${dir}/${sessionFileName(setup.now(), suffix)}`;
  }
  try {
    await fs.mkdirp(dirname(path));
  } catch (e) {
    return {
      ok: false,
      error: `Cannot create the session directory "${dirname(path)}": ${
        e instanceof Error ? e.message : String(e)
      }`,
    };
  }
  return {
    ok: true,
    history: [],
    writer: createSessionWriter(fs, path, { header: header(), onError }),
  };
}

/** Context shared by every agent run of one invocation. */
interface Engine {
  tools: AnyTool[];
  sandbox: SandboxHandle;
  system: () => string;
  /** The counters of the run going on, which see the policy's decisions too. */
  stats?: RunStats;
}

/** The API key variable and every variable that configures the model never reach a tool. */
function secretEnvNames(settings: Settings): string[] {
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

/** The model client's options for `model` (also used by /model in interactive mode). */
function modelClientOptions(setup: RunSetup, model: string): OpenAiClientOptions {
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
  const compat = settings.compat ?? {};
  if (compat.streamOptions !== undefined) options.streamOptions = compat.streamOptions;
  if (compat.maxTokensField !== undefined) options.maxTokensField = compat.maxTokensField;
  if (compat.parallelToolCalls !== undefined) options.parallelToolCalls = compat.parallelToolCalls;
  if (compat.vision !== undefined) options.vision = compat.vision;
  return options;
}

async function openEngine(
  setup: RunSetup,
  prompter: Prompter | undefined,
  reporter: Reporter,
): Promise<{ ok: true; engine: Engine; contextWarnings: string[] } | { ok: false; error: string }> {
  const { settings } = setup;
  const engineRef: { engine?: Engine } = {};
  const request: SandboxRequest = {
    cwd: setup.workspace,
    grants: setup.grants,
    sandbox: settings.sandbox,
    env: setup.env,
    secretEnvNames: secretEnvNames(settings),
    noPrompt: settings.noPrompt || prompter === undefined,
    onDecision: (decision) => {
      reporter.permission?.(decision);
      engineRef.engine?.stats?.observeDecision(decision);
    },
  };
  if (settings.tools !== undefined) request.tools = settings.tools;
  if (settings.bashTimeout !== undefined) request.bashTimeoutSec = settings.bashTimeout;
  if (prompter !== undefined && !settings.noPrompt) request.prompter = prompter;
  const opened = await setup.deps.openSandbox(request);
  if (!opened.ok) return opened;
  const sandbox = opened.sandbox;
  const tools = sandbox.tools;
  const configDir = userConfigDir(setup.env);
  // AGENTS.md only shapes a real model's system prompt; a replay's replies are already written.
  const context = settings.contextFiles && setup.recording === undefined
    ? await loadContextFiles(setup.fs, {
      workspace: setup.workspace,
      ...(configDir === undefined ? {} : { userConfigDir: configDir }),
    })
    : { files: [], warnings: [] };
  const engine: Engine = {
    tools,
    sandbox,
    system: () => {
      const options: Parameters<typeof buildSystemPrompt>[0] = {
        date: setup.now(),
        workspace: setup.workspace,
        tools: tools.map((t) => t.name),
        grants: formatGrants(sandbox.grants),
        contextFiles: context.files,
      };
      if (settings.systemPrompt !== undefined) options.override = settings.systemPrompt;
      if (settings.appendSystemPrompt !== undefined) options.append = settings.appendSystemPrompt;
      return buildSystemPrompt(options);
    },
  };
  engineRef.engine = engine;
  return { ok: true, engine, contextWarnings: context.warnings };
}

/** The run error for a failed run: a ModelError names its cause; anything else is a bug. */
function runErrorOf(e: unknown): RunError {
  if (e instanceof ModelError) {
    // The adapter's messages are whole sentences naming the server, the status and the fix.
    const error: RunError = {
      kind: e.kind,
      message: e.kind === "context_overflow"
        ? `${
          e.message.trimEnd().replace(/([^.!?])$/, "$1.")
        } To go on, start a fresh conversation (/clear in interactive ` +
          "mode, or a run without -c/--session), ask for smaller steps, or use a model with a " +
          "larger context window."
        : e.message,
    };
    if (e.status !== undefined) error.status = e.status;
    return error;
  }
  return {
    kind: "internal",
    message: `Internal error: ${
      e instanceof Error ? e.message : String(e)
    }. This is a bug in moat; please report it (MOAT_DEBUG=1 shows the stack)`,
  };
}

/** One agent run over `history`, reporting events and saving messages; never rejects on a ModelError. */
async function runOnce(
  setup: RunSetup,
  engine: Engine,
  options: {
    model: ModelClient;
    history: import("../model/types.ts").Message[];
    prompt: UserMessage;
    signal: AbortSignal;
    reporter: Reporter;
    stats: RunStats;
    writer: SessionWriter | null;
    maxTurns: number | undefined;
    getQueuedMessages?: () => UserMessage[];
    /** Sees every agent event after the reporter (the replay check). */
    observe?: (event: AgentEvent) => void;
  },
): Promise<RunOutcome> {
  engine.stats = options.stats;
  const agentOptions: Parameters<typeof runAgentLoop>[1] = {
    model: options.model,
    tools: engine.tools,
    system: engine.system(),
    clock: setup.clock,
    signal: options.signal,
    onToolCall: engine.sandbox.onToolCall,
    onEvent: (event) => {
      options.stats.observe(event);
      if (event.type === "message_saved") options.writer?.append(event.message);
      options.reporter.event(event);
      options.observe?.(event);
    },
  };
  if (options.maxTurns !== undefined) agentOptions.maxIterations = options.maxTurns;
  if (setup.settings.temperature !== undefined) {
    agentOptions.temperature = setup.settings.temperature;
  }
  if (setup.settings.maxOutputTokens !== undefined) {
    agentOptions.maxOutputTokens = setup.settings.maxOutputTokens;
  }
  if (options.getQueuedMessages !== undefined) {
    agentOptions.getQueuedMessages = options.getQueuedMessages;
  }
  try {
    const result = await runAgentLoop(
      { history: options.history, prompt: options.prompt },
      agentOptions,
    );
    return { result };
  } catch (e) {
    if (!(e instanceof ModelError) && setup.env.MOAT_DEBUG && e instanceof Error && e.stack) {
      setup.terminal.writeStderr(e.stack + "\n");
    }
    return { error: runErrorOf(e) };
  }
}

/** What runOnce settled with. */
type RunOutcome = { result?: AgentRunResult; error?: RunError };

/** How a settled run ended; `aborted` = its signal fired (interactive Ctrl-C). */
function stopReasonOf(outcome: RunOutcome, aborted: boolean): RunStopReason {
  if (outcome.error !== undefined) return "error";
  if (aborted || outcome.result?.stopReason === "aborted") return "aborted";
  if (outcome.result?.stopReason === "maxIterations") return "maxIterations";
  return "completed";
}

/** Print mode's exit code for each way a run ends (4 for denials is decided by the caller). */
const PRINT_EXIT_CODES: Record<RunStopReason, number> = {
  completed: EXIT.ok,
  error: EXIT.modelError,
  maxIterations: EXIT.maxTurns,
  aborted: EXIT.sigint,
  interrupted: EXIT.sigint,
  terminated: EXIT.sigterm,
};

/** The summary the reporter ends a run with: counters, outcome, stop reason and exit code. */
function runSummary(
  stats: RunStats,
  outcome: RunOutcome,
  end: { stopReason: RunStopReason; exitCode: number },
): RunSummary {
  const summary: RunSummary = {
    stopReason: end.stopReason,
    turns: stats.turns,
    usage: stats.usage,
    toolCalls: stats.toolCalls,
    failed: stats.failed,
    denied: stats.denied,
    exitCode: end.exitCode,
    text: stats.lastText,
  };
  if (end.stopReason === "completed" && outcome.result?.truncated) summary.truncated = true;
  if (end.stopReason === "error" && outcome.error !== undefined) summary.error = outcome.error;
  return summary;
}

function createReporter(setup: RunSetup, interactive: boolean): Reporter {
  const { terminal } = setup;
  const output = interactive ? "text" : setup.settings.output;
  switch (output) {
    case "jsonl":
      return createJsonlReporter({
        writeStdout: (t) => terminal.writeStdout(t),
        writeStderr: (t) => terminal.writeStderr(t),
        includeDeltas: setup.flags.includeDeltas,
        now: setup.now,
      });
    case "json":
      return createJsonReporter({
        writeStdout: (t) => terminal.writeStdout(t),
        writeStderr: (t) => terminal.writeStderr(t),
      });
    case "text": {
      const options: Parameters<typeof createTextRenderer>[0] = {
        writeStdout: (t) => terminal.writeStdout(t),
        writeStderr: (t) => terminal.writeStderr(t),
        stdoutIsTty: terminal.isTty("stdout"),
        stderrIsTty: terminal.isTty("stderr"),
        color: useColor(terminal.isTty("stderr"), setup.env),
        cwd: setup.workspace,
        verbose: setup.flags.verbose,
        interactive,
        columns: () => terminal.columns(),
        clock: setup.clock,
      };
      return createTextRenderer(options);
    }
    default: {
      const never: never = output;
      return never;
    }
  }
}

function startInfo(setup: RunSetup, engine: Engine, session: string | null) {
  const info: import("./report.ts").RunStartInfo = {
    model: setup.settings.model,
    cwd: setup.workspace,
    grants: setup.grants,
    grantsSummary: formatGrants(setup.grants),
    sandbox: engine.sandbox.mode,
    tools: engine.tools.map((t) => t.name),
    session,
    moatVersion: VERSION,
    project: setup.settings.project,
  };
  const recording = setup.recording;
  if (recording !== undefined) {
    info.model = recording.header.model;
    info.replay = {
      file: recording.path,
      recordedModel: recording.header.model,
      recordedAt: recording.header.createdAt,
      replies: recording.replyCount,
      check: setup.flags.replayCheck,
    };
  } else if (setup.settings.baseUrl !== undefined) {
    info.baseUrl = setup.settings.baseUrl;
  }
  return info;
}

/** What print mode gives every run of a replay. */
interface ReplayContext {
  recording: Recording;
  runOptions: Omit<Parameters<typeof runOnce>[2], "model" | "prompt">;
  warn: (message: string) => void;
}

/**
 * Starts a replay (--replay): one run per recorded exchange, each with a replay client as its
 * model, the recording's paths relocated to this machine's, and --replay-check following along.
 */
function startReplay(
  setup: RunSetup,
  engine: Engine,
  context: ReplayContext,
): { run: Promise<RunOutcome>; summary(options: { judged: boolean }): ReplaySummary } {
  const { recording, runOptions } = context;
  const { reporter, stats, writer } = runOptions;
  const header = recording.header;
  const liveHome = setup.env.HOME === "" ? undefined : setup.env.HOME;
  const recorded = {
    workspace: header.cwd,
    ...(header.home === undefined ? {} : { home: header.home }),
  };
  const live = {
    workspace: setup.workspace,
    ...(liveHome === undefined ? {} : { home: liveHome }),
  };
  const relocation = createRelocation(recorded, live);
  const checker = setup.flags.replayCheck ? createReplayChecker({ recorded, live }) : undefined;
  if (checker !== undefined && header.home === undefined) {
    context.warn(
      `The recording does not name its home directory (an older moat wrote it), so paths under ` +
        `the home directory are compared as they are; record it again to compare them too`,
    );
  }
  const userMaxTurns = setup.settings.maxTurns;
  let played = 0;
  let lastReply: RecordedReply | undefined;
  const run = replayRecording<RunOutcome>(recording, {
    ...(setup.flags.prompt === undefined ? {} : { prompt: setup.flags.prompt }),
    relocate: (text) => relocation.relocate(text),
    onReply(reply, options) {
      played++;
      lastReply = reply;
      checker?.onReply(reply, options);
    },
    onUnplayed: (reply) => checker?.onUnplayed(reply),
    warn: context.warn,
    async run(exchange) {
      for (const user of exchange.earlier) {
        runOptions.history.push(user);
        writer?.append(user);
      }
      for (const user of [...exchange.earlier, exchange.prompt]) {
        reporter.replayPrompt?.(
          typeof user.content === "string" ? user.content : resultText(user.content),
        );
      }
      const outcome = await runOnce(setup, engine, {
        ...runOptions,
        // The recorded run's own turn limit, unless the user gives one.
        maxTurns: userMaxTurns ?? exchange.turnLimit,
        model: exchange.model,
        prompt: exchange.prompt,
        observe: (event) => {
          if (event.type === "message_saved" && event.message.role === "toolResult") {
            checker?.onToolResults(event.message);
            relocation.learn(lastReply?.results?.message, event.message);
          }
        },
      });
      if (!exchange.last && outcome.result?.stopReason === "completed") {
        reporter.replayAnswer?.(stats.lastText);
      }
      return outcome;
    },
    classify(outcome, exchange) {
      if (outcome.error?.kind === "replay_exhausted") return "exhausted";
      if (runOptions.signal.aborted || outcome.error !== undefined) return "stopped";
      switch (outcome.result?.stopReason) {
        case "completed":
          return "completed";
        case "maxIterations":
          // The recorded run stopped at the same limit: go on as it did.
          return userMaxTurns === undefined && exchange.turnLimit !== undefined
            ? "completed"
            : "stopped";
        default:
          return "stopped";
      }
    },
  });
  return {
    run,
    summary({ judged }) {
      const check = judged ? checker?.summary() : undefined;
      return {
        file: recording.path,
        played,
        replies: recording.replyCount,
        ...(check === undefined ? {} : { check }),
      };
    },
  };
}

async function printMode(setup: RunSetup): Promise<number> {
  const { terminal, settings } = setup;
  const reporter = createReporter(setup, false);
  const controller = new AbortController();
  let signalled: CliSignal | undefined;
  let force: () => void = () => {};
  const forced = new Promise<"forced">((resolve) => force = () => resolve("forced"));
  let wake: () => void = () => {};
  const firstSignal = new Promise<"signal">((resolve) => wake = () => resolve("signal"));
  const handler = (signal: CliSignal) => () => {
    if (signalled === undefined) {
      signalled = signal;
      controller.abort();
      wake();
    } else {
      // A second signal: stop waiting for the abort grace period.
      force();
    }
  };
  const unsubscribe = [
    terminal.onSignal("SIGINT", handler("SIGINT")),
    terminal.onSignal("SIGTERM", handler("SIGTERM")),
  ];
  // Warnings found before the run starts wait for `run_start` (the first JSONL line); if setup
  // fails, they go to stderr with the error.
  let started = false;
  const pending: string[] = [];
  const warn = (message: string) => started ? reporter.warning(message) : pending.push(message);
  const setupFailed = (message: string, code: number = EXIT.usage) => {
    for (const w of pending.splice(0)) terminal.writeStderr(`moat: warning: ${w}\n`);
    terminal.writeStderr(`moat: ${message}\n`);
    return code;
  };
  // A signal before the run starts (e.g. while waiting for stdin) ends moat at once.
  const signalledBeforeStart = () =>
    setupFailed(
      `${signalled === "SIGINT" ? "interrupted" : "terminated"} before the run started`,
      signalled === "SIGINT" ? EXIT.sigint : EXIT.sigterm,
    );
  let engine: Engine | undefined;
  let writer: SessionWriter | null = null;
  try {
    // A replay's prompts come from the recording (or the argument); stdin is not read.
    const read = setup.recording !== undefined
      ? { prompt: setup.flags.prompt }
      : await Promise.race([readPrintPrompt(setup), firstSignal]);
    if (read === "signal") return signalledBeforeStart();
    if ("error" in read) {
      return setupFailed(`${read.error}\nRun 'moat --help' for usage.`);
    }
    if ("warning" in read && read.warning !== undefined) warn(read.warning);
    const ignored = (["model", "baseUrl", "apiKeyEnv"] as const).filter((k) =>
      setup.recording !== undefined && setup.flags[k] !== undefined
    );
    if (ignored.length > 0) {
      const names = { model: "--model", baseUrl: "--base-url", apiKeyEnv: "--api-key-env" };
      warn(
        `${ignored.map((k) => `'${names[k]}'`).join(", ")} ${
          ignored.length === 1 ? "has" : "have"
        } no effect in a replay: the model's replies come from the recording`,
      );
    }
    const session = await openSession(setup, warn);
    if (!session.ok) return setupFailed(session.error);
    writer = session.writer;
    const opened = await openEngine(setup, undefined, reporter);
    if (!opened.ok) return setupFailed(opened.error);
    engine = opened.engine;
    if (signalled !== undefined) return signalledBeforeStart();
    reporter.start(startInfo(setup, engine, writer?.path ?? null));
    started = true;
    for (
      const w of [
        ...setup.settings.warnings,
        ...pending.splice(0),
        ...engine.sandbox.warnings,
        ...opened.contextWarnings,
      ]
    ) {
      reporter.warning(w);
    }

    const stats = createRunStats();
    const runOptions = {
      history: session.history,
      signal: controller.signal,
      reporter,
      stats,
      writer,
      maxTurns: settings.maxTurns ?? DEFAULT_PRINT_MAX_TURNS,
    };
    const replay = setup.recording === undefined
      ? undefined
      : startReplay(setup, opened.engine, { recording: setup.recording, runOptions, warn });
    const run = replay?.run ?? runOnce(setup, opened.engine, {
      ...runOptions,
      model: setup.deps.createModel(modelClientOptions(setup, settings.model)),
      // Never empty here: readPrintPrompt fails without a prompt.
      prompt: { role: "user", content: read.prompt ?? "" },
    });
    // The run is forced to end only by a second signal; a settled run's outcome is in `run`.
    const outcome = await Promise.race([run, forced]);
    const settled = outcome === "forced" ? {} : outcome;
    const stopReason: RunStopReason = signalled === "SIGINT"
      ? "interrupted"
      : signalled === "SIGTERM"
      ? "terminated"
      : stopReasonOf(settled, false);
    // A verdict needs a replay that went through the recording: not one stopped by a signal or
    // a failure (running out of replies is how the recording itself ends).
    const judged = stopReason === "completed" || stopReason === "maxIterations" ||
      settled.error?.kind === "replay_exhausted";
    const replaySummary = replay?.summary({ judged });
    const differing = (replaySummary?.check?.differing ?? 0) > 0;
    // A failed check outranks the turn limit and --fail-on-deny; failures and signals keep theirs.
    const exitCode = differing && (stopReason === "completed" || stopReason === "maxIterations")
      ? EXIT.replayMismatch
      : stopReason === "completed" && settings.failOnDeny && stats.denied > 0
      ? EXIT.denied
      : PRINT_EXIT_CODES[stopReason];
    if (stopReason === "completed" && stats.lastText.trim() === "") {
      reporter.warning("The model finished without an answer: its final reply was empty");
    }
    const summary = runSummary(stats, settled, { stopReason, exitCode });
    if (settings.prices !== undefined) summary.cost = costOf(stats.usage, settings.prices);
    if (replaySummary !== undefined) summary.replay = replaySummary;
    // Save and clean up before the final report so "run_end" means everything is settled.
    const sandbox = engine.sandbox;
    engine = undefined;
    await sandbox.close();
    await writer?.flush();
    reporter.end(summary);
    return exitCode;
  } finally {
    reporter.dispose();
    await engine?.sandbox.close();
    await writer?.flush();
    for (const off of unsubscribe) off();
  }
}

async function interactiveMode(setup: RunSetup): Promise<number> {
  const { terminal, settings } = setup;
  const reporter = createReporter(setup, true);
  const source = setup.lineSource();
  const color = useColor(terminal.isTty("stdout"), setup.env);
  const dim = (text: string) =>
    useColor(terminal.isTty("stderr"), setup.env) ? `\x1b[2m${text}\x1b[0m` : text;
  const prompter = createReplPrompter(
    source,
    (t) => terminal.writeStderr(t),
    (held) => reporter.hold?.(held),
  );
  let writerRef: { writer: SessionWriter | null } = { writer: null };
  let engine: Engine | undefined;
  try {
    const session = await openSession(setup, (m) => reporter.warning(m));
    if (!session.ok) {
      terminal.writeStderr(`moat: ${session.error}\n`);
      return EXIT.usage;
    }
    writerRef = { writer: session.writer };
    const history = session.history;
    const opened = await openEngine(
      setup,
      terminal.isTty("stderr") ? prompter : undefined,
      reporter,
    );
    if (!opened.ok) {
      terminal.writeStderr(`moat: ${opened.error}\n`);
      return EXIT.usage;
    }
    const eng = opened.engine;
    engine = eng;
    reporter.start(startInfo(setup, eng, writerRef.writer?.path ?? null));
    for (const w of [...settings.warnings, ...eng.sandbox.warnings, ...opened.contextWarnings]) {
      reporter.warning(w);
    }
    let model = settings.model;
    let client = setup.deps.createModel(modelClientOptions(setup, model));
    const banner = `moat ${VERSION} · ${model} · ${setup.workspace}\n` +
      resumeBanner(history, writerRef.writer?.path) +
      `Type a request; /help lists commands; Ctrl-D exits.\n`;
    return await runRepl({
      terminal,
      source,
      color,
      banner,
      host: {
        async runPrompt(text, signal, getQueued) {
          const stats = createRunStats();
          const outcome = await runOnce(setup, eng, {
            model: client,
            history,
            prompt: { role: "user", content: text },
            signal,
            reporter,
            stats,
            writer: writerRef.writer,
            maxTurns: settings.maxTurns,
            getQueuedMessages: () =>
              getQueued().map((content): UserMessage => ({ role: "user", content })),
          });
          await writerRef.writer?.flush();
          const stopReason = stopReasonOf(outcome, signal.aborted);
          // Stops the spinner and explains errors and limits; the text was already streamed.
          reporter.end(runSummary(stats, outcome, { stopReason, exitCode: EXIT.ok }));
          const used = setup.flags.quiet ? null : usageLine(stats.usage, settings.prices);
          if (used !== null) terminal.writeStderr(`${dim(used)}\n`);
        },
        model: () => model,
        setModel(name) {
          model = name;
          client = setup.deps.createModel(modelClientOptions(setup, name));
          return `Model: ${name}`;
        },
        async clear() {
          await writerRef.writer?.flush();
          history.length = 0;
          const { session: _given, resume: _resumed, ...flags } = setup.flags;
          const fresh = await openSession(
            { ...setup, flags: { ...flags, continue: false } },
            (m) => reporter.warning(m),
          );
          writerRef = { writer: fresh.ok ? fresh.writer : null };
          // Written now, so `moat -c` resumes this (still empty) conversation, not the cleared one.
          writerRef.writer?.begin();
          await writerRef.writer?.flush();
          return `Started a new session${
            writerRef.writer === null ? "" : ` (${writerRef.writer.path})`
          }.`;
        },
        grants: () => formatGrants(eng.sandbox.grants),
        note: (text) => reporter.note?.(text),
      },
    });
  } finally {
    reporter.dispose();
    await engine?.sandbox.close();
    await writerRef.writer?.flush();
  }
}
