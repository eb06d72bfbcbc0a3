/**
 * Command-line parsing for `moat`: every flag of the CLI and sandbox issues, parsed with
 * node:util parseArgs into a typed result. Bad input is a value (`{ok: false}`), never a throw.
 */
import { parseArgs } from "node:util";
import { GRANT_FLAGS, type GrantFlag } from "../policy/grants.ts";
import { SANDBOX_MODES, type SandboxMode } from "../sandbox/mode.ts";
import { parseArgsErrorText } from "./args_errors.ts";

/** Output formats of print mode. */
export const OUTPUT_FORMATS = ["text", "json", "jsonl"] as const;
/** One of OUTPUT_FORMATS. */
export type OutputFormat = typeof OUTPUT_FORMATS[number];

/** `--sandbox` values; the sandbox owns them. */
export { SANDBOX_MODES, type SandboxMode };

/** A permission flag that takes an optional `=LIST` (Deno's syntax: bare means "all"). */
export type PermissionListFlag = Exclude<GrantFlag, "allow-all">;
/** Every permission flag of src/policy/grants.ts but `-A/--allow-all`, which takes no list. */
const PERMISSION_LIST_FLAGS: readonly PermissionListFlag[] = GRANT_FLAGS.filter(
  (flag): flag is PermissionListFlag => flag !== "allow-all",
);

/**
 * The permission flags exactly as given, in parseArgs' kebab-case shape (what parseGrantFlags of
 * src/policy/grants.ts takes): `true` when given bare (everything), else each occurrence's text.
 */
export type PermissionFlagValues =
  & { [K in PermissionListFlag]?: true | Array<string | true> }
  & { "allow-all"?: boolean };

/** Everything the flags said; absent fields were not given (config and defaults fill them). */
export interface CliFlags {
  /** The prompt from the positional arguments (joined by spaces), if any. */
  prompt?: string;
  print: boolean;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  maxTurns?: number;
  tools?: string[];
  cwd?: string;
  output?: OutputFormat;
  session?: string;
  continue: boolean;
  /** `--resume ID|PATH`: resume that session; `true` when given bare (pick one on a terminal). */
  resume?: string | true;
  noSession: boolean;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  bashTimeout?: number;
  sandbox?: SandboxMode;
  noPrompt: boolean;
  failOnDeny: boolean;
  verbose: boolean;
  /** `--quiet`: no usage line after each answer in interactive mode. */
  quiet: boolean;
  noContextFiles: boolean;
  includeDeltas: boolean;
  /** `--replay FILE`: play this recorded session's model replies instead of calling a model. */
  replay?: string;
  /** `--replay-check`: compare live tool results with the recorded ones (exit 5 on a difference). */
  replayCheck: boolean;
  /** `--trust-project`: apply the project config's sensitive settings for this run. */
  trustProject: boolean;
  permissions: PermissionFlagValues;
}

/** The outcome of parsing argv. */
export type ParsedArgs =
  | { ok: true; command: "help" }
  | { ok: true; command: "version" }
  | { ok: true; command: "run"; flags: CliFlags }
  | { ok: false; error: string };

/** Every option parseCliArgs accepts (node:util parseArgs shape); `--help` documents each one. */
export const CLI_OPTIONS = {
  print: { type: "boolean", short: "p" },
  model: { type: "string", short: "m" },
  "base-url": { type: "string" },
  "api-key-env": { type: "string" },
  "max-turns": { type: "string" },
  tools: { type: "string" },
  cwd: { type: "string" },
  output: { type: "string", short: "o" },
  session: { type: "string" },
  continue: { type: "boolean", short: "c" },
  resume: { type: "string" },
  "no-session": { type: "boolean" },
  "system-prompt": { type: "string" },
  "append-system-prompt": { type: "string" },
  "bash-timeout": { type: "string" },
  sandbox: { type: "string" },
  "no-prompt": { type: "boolean" },
  "fail-on-deny": { type: "boolean" },
  verbose: { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
  "no-context-files": { type: "boolean" },
  "include-deltas": { type: "boolean" },
  replay: { type: "string" },
  "replay-check": { type: "boolean" },
  "trust-project": { type: "boolean" },
  version: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  "allow-all": { type: "boolean", short: "A" },
  "allow-read": { type: "string", multiple: true },
  "deny-read": { type: "string", multiple: true },
  "allow-write": { type: "string", multiple: true },
  "deny-write": { type: "string", multiple: true },
  "allow-run": { type: "string", multiple: true },
  "deny-run": { type: "string", multiple: true },
  "allow-net": { type: "string", multiple: true },
  "allow-env": { type: "string", multiple: true },
} as const;

/** The usage text printed by `--help`. */
export function helpText(version: string): string {
  return `moat ${version} — a coding agent whose tools can touch only what you granted

Usage:
  moat [flags] [prompt]          print mode when a prompt is given or stdin is piped
  moat [flags]                   interactive mode on a terminal
  moat sessions [--cwd DIR]      list this workspace's sessions, newest first

Model:
  -m, --model NAME               model name (env MOAT_MODEL)
      --base-url URL             OpenAI-compatible endpoint (env OPENAI_BASE_URL)
      --api-key-env NAME         variable holding the API key (default OPENAI_API_KEY)
      --max-turns N              stop after N model turns (default 100 in print mode,
                                 unlimited interactively)
      --system-prompt TEXT       replace the built-in system prompt
      --append-system-prompt TEXT
                                 add TEXT to the system prompt
      --no-context-files         do not load AGENTS.md files

Tools and permissions (Deno's own syntax; paths relative to the workspace):
      --tools LIST               enable only these tools (read,bash,edit,write,grep,find,ls)
      --cwd DIR                  workspace directory (default: the current directory)
      --bash-timeout S           default bash timeout in seconds (default 120)
      --allow-read[=PATHS]       --deny-read=PATHS
      --allow-write[=PATHS]      --deny-write=PATHS
      --allow-run[=PROGRAMS]     --deny-run=PROGRAMS
      --allow-net[=HOSTS]        --allow-env[=VARS]
  -A, --allow-all                grant everything (the API key still never reaches a tool)
      --sandbox auto|require|off OS sandbox (bubblewrap): require exits 2 when unavailable
      --no-prompt                never ask for approval; ungranted calls are denied
      --trust-project            apply this project's sensitive settings (see Trust) for
                                 this run; to remember it, add the workspace to
                                 trustedProjects in the user config

Output and exit status:
  -p, --print                    force print mode (permission prompts become denials)
  -o, --output text|json|jsonl   print-mode output (default text); see docs/events.md
      --include-deltas           with --output jsonl, also emit text deltas
      --fail-on-deny             exit 4 when any tool call was denied
      --verbose                  more detail on stderr
  -q, --quiet                    interactive mode: no usage line (tokens, cost) after answers

Sessions:
  -c, --continue                 resume the newest session of this workspace (when there
                                 is none, a new one starts with a warning)
      --resume [ID|PATH]         resume that session (ids: moat sessions); bare, on a
                                 terminal: pick one from a numbered list
      --session FILE             use (and append to) this session file; created, with
                                 its directory, when missing
      --no-session               do not write a session

Replay (no model needed; the tools run for real under the current grants):
      --replay FILE              play a recorded session's model replies back in print mode;
                                 a prompt replaces its first user message
      --replay-check             exit 5 when a tool result differs from the recording
                                 (after normalising paths, and times in bash output);
                                 shows the first

  -h, --help                     show this help
      --version                  show the version

Environment and files:
  OPENAI_API_KEY (or the --api-key-env variable), OPENAI_BASE_URL or MOAT_BASE_URL, MOAT_MODEL,
  MOAT_API_KEY_ENV, MOAT_MAX_TURNS, MOAT_SANDBOX; NO_COLOR disables colour. Settings also come
  from .moat/config.json and $XDG_CONFIG_HOME/moat/config.json (flags win); AGENTS.md files are
  added to the system prompt; sessions live in $XDG_STATE_HOME/moat/sessions/.

Trust (docs/security.md):
  A project's .moat/config.json may set model, maxTurns, bashTimeout, compat and the like from
  any clone. Settings that choose where requests and credentials go (baseUrl, apiKeyEnv,
  headers) or weaken the sandbox (sandbox other than "require") apply only in a trusted
  project: one whose real path is in trustedProjects of the user config, or with
  --trust-project. On a terminal moat asks once; without one it exits 2 before any request.
  Inside a write grant, .git/hooks, .git/config, the core.hooksPath directory and .moat/ stay
  read-only for every tool unless --allow-write names them (e.g. --allow-write=.,.git/hooks).

Exit codes: 0 completed · 1 model/provider error (or a replay ran out of replies) · 2 usage/config
error or required sandbox unavailable · 3 max turns reached · 4 denied tool calls with
--fail-on-deny · 5 --replay-check found a difference · 130 SIGINT · 143 SIGTERM

Examples:
  moat "what does src/main.ts do?"
  moat --allow-write=src,tests --allow-run=git,deno "make the tests pass"
  git diff | moat -p "review this diff" --output json
  moat --output jsonl --fail-on-deny --no-session "update the changelog" > events.jsonl
  OPENAI_BASE_URL=http://localhost:11434/v1 moat --model qwen2.5-coder "explain this repo"
  moat -c                        continue the last conversation in this workspace
  moat --replay examples/tour.jsonl --replay-check   offline check of tools and grants
`;
}

function usageError(message: string): ParsedArgs {
  return { ok: false, error: message };
}

function splitList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * Parses moat's argv. A leading "--" (what `deno task start -- …` passes) is dropped; a later
 * "--" ends the flags. Never throws.
 */
export function parseCliArgs(argv: readonly string[]): ParsedArgs {
  const args = argv[0] === "--" ? argv.slice(1) : [...argv];

  // Permission list flags take an optional value that must be attached with "=" (as in Deno), so
  // a bare flag never swallows the prompt that follows it. Pull bare ones out before parseArgs.
  const bare = new Set<PermissionListFlag>();
  const rest: string[] = [];
  let ended = false;
  let bareResume = false;
  for (const [i, arg] of args.entries()) {
    if (!ended && arg === "--") ended = true;
    const flag = arg.startsWith("--") ? arg.slice(2) : "";
    if (!ended && (PERMISSION_LIST_FLAGS as readonly string[]).includes(flag)) {
      bare.add(flag as PermissionListFlag);
      continue;
    }
    // `--resume` last or before another flag names no session: pick one.
    if (!ended && arg === "--resume" && (args[i + 1] ?? "-").startsWith("-")) {
      bareResume = true;
      continue;
    }
    rest.push(arg);
  }

  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: CLI_OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    return usageError(parseArgsErrorText(e, rest, CLI_OPTIONS));
  }
  const v = parsed.values;
  if (v.help) return { ok: true, command: "help" };
  if (v.version) return { ok: true, command: "version" };

  const permissions: PermissionFlagValues = {};
  for (const name of PERMISSION_LIST_FLAGS) {
    const given = v[name];
    if (bare.has(name)) {
      // Values next to the bare flag still count where a path must be named (a protected path's
      // carve-out: `--allow-write --allow-write=.git/hooks`).
      permissions[name] = given === undefined ? true : [true, ...given];
      continue;
    }
    // Entries stay as given ("a,b"); src/policy/grants.ts parseGrantFlags splits and checks them.
    if (given !== undefined) permissions[name] = [...given];
  }
  if (v["allow-all"]) permissions["allow-all"] = true;

  const flags: CliFlags = {
    print: v.print ?? false,
    continue: v.continue ?? false,
    noSession: v["no-session"] ?? false,
    noPrompt: v["no-prompt"] ?? false,
    failOnDeny: v["fail-on-deny"] ?? false,
    verbose: v.verbose ?? false,
    quiet: v.quiet ?? false,
    noContextFiles: v["no-context-files"] ?? false,
    includeDeltas: v["include-deltas"] ?? false,
    replayCheck: v["replay-check"] ?? false,
    trustProject: v["trust-project"] ?? false,
    permissions,
  };
  if (parsed.positionals.length > 0) flags.prompt = parsed.positionals.join(" ");

  const nonEmpty = (name: string, value: string | undefined): string | ParsedArgs | undefined => {
    if (value === undefined) return undefined;
    if (value.trim() === "") return usageError(`Option '--${name}' must not be empty`);
    return value;
  };
  for (
    const [name, key] of [
      ["model", "model"],
      ["base-url", "baseUrl"],
      ["api-key-env", "apiKeyEnv"],
      ["cwd", "cwd"],
      ["session", "session"],
      ["replay", "replay"],
      ["resume", "resume"],
    ] as const
  ) {
    const value = nonEmpty(name, v[name]);
    if (typeof value === "object") return value;
    if (value !== undefined) flags[key] = value;
  }
  if (bareResume && flags.resume === undefined) flags.resume = true;
  if (v["system-prompt"] !== undefined) flags.systemPrompt = v["system-prompt"];
  if (v["append-system-prompt"] !== undefined) {
    flags.appendSystemPrompt = v["append-system-prompt"];
  }

  if (v["max-turns"] !== undefined) {
    const n = parsePositiveInteger(v["max-turns"]);
    if (n === undefined) {
      return usageError(
        `Option '--max-turns' expects a positive integer, got "${v["max-turns"]}"`,
      );
    }
    flags.maxTurns = n;
  }
  if (v["bash-timeout"] !== undefined) {
    const n = Number(v["bash-timeout"]);
    if (!/^\d+(\.\d+)?$/.test(v["bash-timeout"].trim()) || !(n > 0)) {
      return usageError(
        `Option '--bash-timeout' expects a positive number of seconds, got "${v["bash-timeout"]}"`,
      );
    }
    flags.bashTimeout = n;
  }
  if (v.output !== undefined) {
    if (!(OUTPUT_FORMATS as readonly string[]).includes(v.output)) {
      return usageError(
        `Option '--output' expects one of ${OUTPUT_FORMATS.join(", ")}, got "${v.output}"`,
      );
    }
    flags.output = v.output as OutputFormat;
  }
  if (v.sandbox !== undefined) {
    if (!(SANDBOX_MODES as readonly string[]).includes(v.sandbox)) {
      return usageError(
        `Option '--sandbox' expects one of ${SANDBOX_MODES.join(", ")}, got "${v.sandbox}"`,
      );
    }
    flags.sandbox = v.sandbox as SandboxMode;
  }
  if (v.tools !== undefined) {
    const tools = splitList(v.tools);
    if (tools.length === 0) return usageError(`Option '--tools' needs a comma-separated list`);
    flags.tools = tools;
  }

  if (flags.resume !== undefined) {
    const other = flags.continue
      ? "--continue"
      : flags.session !== undefined
      ? "--session"
      : flags.noSession
      ? "--no-session"
      : flags.replay !== undefined
      ? "--replay"
      : undefined;
    if (other !== undefined) {
      return usageError(`Options '--resume' and '${other}' cannot be combined: choose one session`);
    }
  }
  if (flags.quiet && flags.verbose) {
    return usageError(`Options '--quiet' and '--verbose' cannot be combined`);
  }
  if (flags.continue && flags.session !== undefined) {
    return usageError(`Options '--continue' and '--session' cannot be combined`);
  }
  if (flags.noSession && (flags.continue || flags.session !== undefined)) {
    return usageError(
      `Option '--no-session' cannot be combined with '--continue' or '--session'`,
    );
  }
  if (flags.replayCheck && flags.replay === undefined) {
    return usageError(`Option '--replay-check' needs '--replay FILE'`);
  }
  if (flags.replay !== undefined && flags.continue) {
    return usageError(
      `Options '--replay' and '--continue' cannot be combined: a replay starts from the recording's own conversation`,
    );
  }
  if (flags.includeDeltas && flags.output !== undefined && flags.output !== "jsonl") {
    return usageError(`Option '--include-deltas' only applies to '--output jsonl'`);
  }
  return { ok: true, command: "run", flags };
}

/** Parses a positive decimal integer, or undefined. */
export function parsePositiveInteger(text: string): number | undefined {
  if (!/^\d+$/.test(text.trim())) return undefined;
  const n = Number(text.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
