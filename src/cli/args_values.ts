/** Option values with a syntax of their own, checked apart from parseCliArgs. */
import { isAbsolute, join, resolve } from "node:path";
import type { PathOps } from "../policy/ops.ts";

/** The names of `--allow-mcp=…` values (SERVER or SERVER__TOOL), or the usage error's text. */
export function allowMcpNames(values: readonly string[]): string[] | string {
  const names: string[] = [];
  for (const value of values) {
    for (const name of value.split(",").map((n) => n.trim())) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
        return `Option '--allow-mcp' expects SERVER or SERVER__TOOL names separated by commas, ` +
          `got "${value}"`;
      }
      if (!names.includes(name)) names.push(name);
    }
  }
  return names;
}

/** `arg` as a POSIX shell reads it back: bare when safe, else quoted. */
export function shellWord(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  if (!/[$`"\\!]/.test(arg)) return `"${arg}"`;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** A command line for the user to copy: `moat` and `args`, each quoted as needed. */
export function moatCommand(args: readonly string[]): string {
  return ["moat", ...args.map(shellWord)].join(" ");
}

/** The permission list flags whose value must follow `=`, by what their items name. */
const LIST_FLAG_KINDS: Record<string, Kind> = {
  "allow-read": "path",
  "deny-read": "path",
  "ignore-read": "path",
  "allow-write": "path",
  "deny-write": "path",
  "allow-run": "program",
  "deny-run": "program",
  "allow-net": "host",
  "deny-net": "host",
  "allow-env": "env",
  "ignore-env": "env",
  "allow-mcp": "mcp",
};

type Kind = "path" | "program" | "host" | "env" | "mcp";

/** What `bareGrantValueError` looks up: the file system, and where the workspace and PATH are. */
export interface GrantWordProbe {
  paths: Pick<PathOps, "stat">;
  /** The directory moat started in (a relative `--cwd` is relative to it). */
  cwd: string;
  /** The `PATH` to look programs up on. */
  path?: string;
  home?: string;
}

/**
 * The usage error for a bare permission flag followed by a word that names what the flag would
 * list (`--allow-write src "task"`: Deno's lists follow "="), with the exact spelling to use; or
 * undefined. `args` is moat's argv after any subcommand. A word with spaces is a prompt unless it
 * names an existing path.
 */
export function bareGrantValueError(
  args: readonly string[],
  probe: GrantWordProbe,
): string | undefined {
  const workspace = resolve(probe.cwd, cwdFlag(args) ?? ".");
  for (const [i, arg] of args.entries()) {
    if (arg === "--") return undefined;
    const kind = arg.startsWith("--") ? LIST_FLAG_KINDS[arg.slice(2)] : undefined;
    const word = args[i + 1];
    if (kind === undefined || word === undefined || word.startsWith("-")) continue;
    const looks = looksLike(kind, word, { ...probe, workspace });
    if (looks === "no") continue;
    const flag = arg.slice(2);
    const fixed = [...args.slice(0, i), `--${flag}=${word}`, ...args.slice(i + 2)];
    const asPrompt = [...args.slice(0, i + 1), "--", ...args.slice(i + 1)];
    const bare = flag.startsWith("deny-")
      ? `Option '--${flag}' needs its list after "=" (Deno's syntax)`
      : `Option '--${flag}' takes its list after "=" (Deno's syntax); given bare it allows ` +
        "everything";
    return `${bare}, and the word after it, "${word}", ${WHAT[looks]}: ` +
      `to ${flag.startsWith("deny-") ? "deny" : "allow"} it, write ${moatCommand(fixed)}` +
      (flag.startsWith("deny-")
        ? ""
        : `; to send "${word}" as the prompt, write ${moatCommand(asPrompt)}`);
  }
  return undefined;
}

const WHAT = {
  path: "names a path",
  program: "names a program",
  host: "names a host",
  env: "names an environment variable",
  mcp: "names an MCP tool",
  list: "is a list",
} as const;

type Looks = keyof typeof WHAT | "no";

function looksLike(
  kind: Kind,
  word: string,
  probe: GrantWordProbe & { workspace: string },
): Looks {
  const spaced = /\s/.test(word);
  if (kind === "path") {
    if (probe.paths.stat(resolve(probe.workspace, expandTilde(word, probe.home))) !== undefined) {
      return "path";
    }
    if (spaced) return "no";
    return /[/,]/.test(word) || /^[.~]/.test(word) ? "path" : "no";
  }
  if (spaced) return "no";
  const items = word.split(",");
  const list: Looks = items.length > 1 ? "list" : kind;
  switch (kind) {
    case "program":
      // A name on PATH is also a plausible one-word prompt: refused too, with both spellings.
      if (items.length > 1 && items.every((p) => /^[\w.+/-]+$/.test(p))) return list;
      return word.includes("/") || onPath(word, probe) ? "program" : "no";
    case "host":
      return items.every((h) => HOST.test(h)) ? list : "no";
    case "env":
      return items.every((v) => /^[A-Z_][A-Z0-9_]*\*?$/.test(v)) ? list : "no";
    case "mcp":
      // SERVER__TOOL, or a list of names; a lone name is a plausible one-word prompt.
      if (!items.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n))) return "no";
      return items.length > 1 ? "list" : word.includes("__") ? "mcp" : "no";
  }
}

/** A host name with a dot, localhost, an IPv4 or bracketed IPv6 address; a port or not. */
const HOST =
  /^(?:localhost|(?:[a-z0-9-]+\.)+[a-z0-9-]+|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])(?::\d{1,5})?$|^[a-z0-9-]+:\d{1,5}$/i;

function onPath(name: string, probe: GrantWordProbe): boolean {
  for (const dir of (probe.path ?? "").split(":")) {
    if (dir === "" || !isAbsolute(dir)) continue;
    if (probe.paths.stat(join(dir, name))?.kind === "file") return true;
  }
  return false;
}

function expandTilde(word: string, home: string | undefined): string {
  if (home === undefined || !(word === "~" || word.startsWith("~/"))) return word;
  return join(home, word.slice(1));
}

/** The last `--cwd` value in `args` (before a `--`), as parseArgs would take it. */
function cwdFlag(args: readonly string[]): string | undefined {
  let cwd: string | undefined;
  for (const [i, arg] of args.entries()) {
    if (arg === "--") break;
    if (arg === "--cwd") cwd = args[i + 1];
    else if (arg.startsWith("--cwd=")) cwd = arg.slice("--cwd=".length);
  }
  return cwd;
}

/** The session, output and verbosity flags `flagConflict` checks. */
interface ConflictFlags {
  resume?: string | true;
  continue: boolean;
  session?: string;
  noSession: boolean;
  replay?: string;
  replayCheck: boolean;
  quiet: boolean;
  verbose: boolean;
  includeDeltas: boolean;
  output?: string;
}

/** The usage error of flags that cannot be combined, or undefined. */
export function flagConflict(flags: ConflictFlags): string | undefined {
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
      return `Options '--resume' and '${other}' cannot be combined: choose one session`;
    }
  }
  if (flags.quiet && flags.verbose) {
    return `Options '--quiet' and '--verbose' cannot be combined`;
  }
  if (flags.continue && flags.session !== undefined) {
    return `Options '--continue' and '--session' cannot be combined`;
  }
  if (flags.noSession && (flags.continue || flags.session !== undefined)) {
    return `Option '--no-session' cannot be combined with '--continue' or '--session'`;
  }
  if (flags.replayCheck && flags.replay === undefined) {
    return `Option '--replay-check' needs '--replay FILE'`;
  }
  if (flags.replay !== undefined && flags.continue) {
    return `Options '--replay' and '--continue' cannot be combined: a replay starts from the recording's own conversation`;
  }
  if (flags.includeDeltas && flags.output !== undefined && flags.output !== "jsonl") {
    return `Option '--include-deltas' only applies to '--output jsonl'`;
  }
  return undefined;
}
