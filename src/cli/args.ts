/**
 * Command-line parsing for `moat`: every flag of the CLI and sandbox issues, parsed with
 * node:util parseArgs into a typed result. Bad input is a value (`{ok: false}`), never a throw.
 */
import { parseArgs } from "node:util";
import { GRANT_FLAGS, type GrantFlag } from "../policy/grants.ts";
import { SANDBOX_MODES, type SandboxMode } from "../sandbox/mode.ts";
import { parseArgsErrorText, subcommandAfterFlags } from "./args_errors.ts";

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
  /** `--provider NAME`: the server family (its request shape); detected when not given. */
  provider?: string;
  apiKeyEnv?: string;
  maxTurns?: number;
  /** `--max-wall-time SECONDS`. */
  maxWallTime?: number;
  /** `--max-tool-calls N`. */
  maxToolCalls?: number;
  /** `--max-tokens-total N`. */
  maxTokensTotal?: number;
  /** `--max-cost AMOUNT`. */
  maxCost?: number;
  /** `--output-schema FILE`: the final answer must be JSON valid against this JSON Schema. */
  outputSchema?: string;
  /** `--mcp-config FILE`: more MCP servers for this run (repeatable). */
  mcpConfig: string[];
  /** `--no-mcp`: start no MCP server. */
  noMcp: boolean;
  /** `--allow-mcp[=SERVER|SERVER__TOOL,…]`: MCP tool calls allowed without asking (`true`: all). */
  allowMcp?: true | string[];
  /** `--allow-unsandboxed-mcp`: start stdio MCP servers even without bubblewrap. */
  allowUnsandboxedMcp: boolean;
  /** `--context-window TOKENS`: the model's context window. */
  contextWindow?: number;
  /** `--no-compaction`: never compact; an overflow ends the run with exit 6. */
  noCompaction: boolean;
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
  /** `--no-hooks`: run no hooks of the config files in this run. */
  noHooks: boolean;
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

export { helpText } from "./help.ts";
import { allowMcpNames, flagConflict } from "./args_values.ts";

/** Every option parseCliArgs accepts (node:util parseArgs shape); `--help` documents each one. */
export const CLI_OPTIONS = {
  print: { type: "boolean", short: "p" },
  model: { type: "string", short: "m" },
  "base-url": { type: "string" },
  provider: { type: "string" },
  "api-key-env": { type: "string" },
  "max-turns": { type: "string" },
  "context-window": { type: "string" },
  "max-wall-time": { type: "string" },
  "max-tool-calls": { type: "string" },
  "max-tokens-total": { type: "string" },
  "max-cost": { type: "string" },
  "output-schema": { type: "string" },
  "mcp-config": { type: "string", multiple: true },
  "no-mcp": { type: "boolean" },
  "allow-mcp": { type: "string", multiple: true },
  "allow-unsandboxed-mcp": { type: "boolean" },
  "no-compaction": { type: "boolean" },
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
  "no-hooks": { type: "boolean" },
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
  "ignore-read": { type: "string", multiple: true },
  "allow-write": { type: "string", multiple: true },
  "deny-write": { type: "string", multiple: true },
  "allow-run": { type: "string", multiple: true },
  "deny-run": { type: "string", multiple: true },
  "allow-net": { type: "string", multiple: true },
  "deny-net": { type: "string", multiple: true },
  "allow-env": { type: "string", multiple: true },
  "ignore-env": { type: "string", multiple: true },
} as const;

function usageError(message: string): ParsedArgs {
  return { ok: false, error: message };
}

function splitList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * Parses moat's argv. A leading "--" (what `deno task start -- …` passes) is dropped; a later
 * "--" ends the flags. A subcommand's name as the prompt's first word before any "--" is a usage
 * error (subcommands come first) unless `subcommand` says one was already given. Never throws.
 */
export function parseCliArgs(
  argv: readonly string[],
  options: { subcommand?: boolean } = {},
): ParsedArgs {
  const args = argv[0] === "--" ? argv.slice(1) : [...argv];

  // Permission list flags take an optional value that must be attached with "=" (as in Deno), so
  // a bare flag never swallows the prompt that follows it. Pull bare ones out before parseArgs.
  const bare = new Set<PermissionListFlag>();
  const rest: string[] = [];
  // Where each entry of `rest` is in `args`.
  const at: number[] = [];
  let ended = false;
  let bareResume = false;
  let bareMcp = false;
  for (const [i, arg] of args.entries()) {
    if (!ended && arg === "--") ended = true;
    const flag = arg.startsWith("--") ? arg.slice(2) : "";
    if (!ended && (PERMISSION_LIST_FLAGS as readonly string[]).includes(flag)) {
      bare.add(flag as PermissionListFlag);
      continue;
    }
    if (!ended && arg === "--allow-mcp") {
      bareMcp = true;
      continue;
    }
    // `--resume` last or before another flag names no session: pick one.
    if (!ended && arg === "--resume" && (args[i + 1] ?? "-").startsWith("-")) {
      bareResume = true;
      continue;
    }
    rest.push(arg);
    at.push(i);
  }

  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: CLI_OPTIONS,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (e) {
    return usageError(parseArgsErrorText(e, rest, CLI_OPTIONS));
  }
  const misplaced = options.subcommand ? undefined : subcommandAfterFlags(parsed.tokens, args, at);
  if (misplaced !== undefined) return usageError(misplaced);
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
    noHooks: v["no-hooks"] ?? false,
    failOnDeny: v["fail-on-deny"] ?? false,
    verbose: v.verbose ?? false,
    quiet: v.quiet ?? false,
    noContextFiles: v["no-context-files"] ?? false,
    includeDeltas: v["include-deltas"] ?? false,
    replayCheck: v["replay-check"] ?? false,
    trustProject: v["trust-project"] ?? false,
    noCompaction: v["no-compaction"] ?? false,
    mcpConfig: v["mcp-config"] ?? [],
    noMcp: v["no-mcp"] ?? false,
    allowUnsandboxedMcp: v["allow-unsandboxed-mcp"] ?? false,
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
      ["provider", "provider"],
      ["api-key-env", "apiKeyEnv"],
      ["cwd", "cwd"],
      ["session", "session"],
      ["replay", "replay"],
      ["resume", "resume"],
      ["output-schema", "outputSchema"],
    ] as const
  ) {
    const value = nonEmpty(name, v[name]);
    if (typeof value === "object") return value;
    if (value !== undefined) flags[key] = value;
  }
  if (bareResume && flags.resume === undefined) flags.resume = true;
  if (bareMcp || v["allow-all"]) flags.allowMcp = true;
  else if (v["allow-mcp"] !== undefined) {
    const names = allowMcpNames(v["allow-mcp"]);
    if (typeof names === "string") return usageError(names);
    flags.allowMcp = names;
  }
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
  for (
    const [name, key] of [["max-tool-calls", "maxToolCalls"], [
      "max-tokens-total",
      "maxTokensTotal",
    ]] as const
  ) {
    const value = v[name];
    if (value === undefined) continue;
    const n = parsePositiveInteger(value);
    if (n === undefined) {
      return usageError(`Option '--${name}' expects a positive integer, got "${value}"`);
    }
    flags[key] = n;
  }
  for (
    const [name, key, what] of [
      ["max-wall-time", "maxWallTime", "a positive number of seconds"],
      ["max-cost", "maxCost", "a positive amount (in the currency of your pricing)"],
    ] as const
  ) {
    const value = v[name];
    if (value === undefined) continue;
    const n = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0)) {
      return usageError(`Option '--${name}' expects ${what}, got "${value}"`);
    }
    flags[key] = n;
  }
  if (v["context-window"] !== undefined) {
    const n = parsePositiveInteger(v["context-window"]);
    if (n === undefined || n < 256) {
      return usageError(
        `Option '--context-window' expects a number of tokens (at least 256), got "${
          v["context-window"]
        }"`,
      );
    }
    flags.contextWindow = n;
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

  const conflict = flagConflict(flags);
  if (conflict !== undefined) return usageError(conflict);
  return { ok: true, command: "run", flags };
}

/** Parses a positive decimal integer, or undefined. */
export function parsePositiveInteger(text: string): number | undefined {
  if (!/^\d+$/.test(text.trim())) return undefined;
  const n = Number(text.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
