/**
 * Usage errors from node:util parseArgs in moat's words: an unknown option names the closest known
 * one ("did you mean"), since parseArgs' own text has an unbalanced quote and suggests a `--` that
 * moat drops.
 */
import { parseArgs } from "node:util";
import { moatCommand } from "./args_values.ts";

/** A parseArgs options table (only the names and short forms are used here). */
export type OptionTable = Record<string, { type: "string" | "boolean"; short?: string }>;

/**
 * Edit distance (optimal string alignment: insertions, deletions, substitutions and swaps of two
 * neighbouring characters each count 1).
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const prev = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate closest to `word`, when it is close enough to be a likely typo (one edit for
 * short words, two for words of 6 or more characters, at most a third of the word); else undefined.
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(word.length >= 6 ? 2 : 1, Math.floor(word.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word, name);
    if (distance <= limit && (best === undefined || distance < best.distance)) {
      best = { name, distance };
    }
  }
  return best?.name;
}

/** The option parseArgs rejected as unknown (as typed, e.g. `--frobnicate` or `-z`), if any. */
function unknownOption(args: readonly string[], options: OptionTable): string | undefined {
  const { tokens } = parseArgs({
    args: [...args],
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const token = tokens.find((t) => t.kind === "option" && !Object.hasOwn(options, t.name));
  return token?.kind === "option" ? token.rawName : undefined;
}

/**
 * The usage error for what parseArgs threw on `args`: an unknown option is named in quotes with
 * the closest known option when there is one; other errors keep parseArgs' text.
 */
export function parseArgsErrorText(
  error: unknown,
  args: readonly string[],
  options: OptionTable,
): string {
  const code = (error as { code?: unknown } | null)?.code;
  const unknown = code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
    ? unknownOption(args, options)
    : undefined;
  if (unknown === undefined) return error instanceof Error ? error.message : String(error);
  if (unknown.startsWith("--")) {
    const match = closestMatch(unknown.slice(2), Object.keys(options));
    if (match !== undefined) return `Unknown option "${unknown}": did you mean "--${match}"?`;
  }
  return `Unknown option "${unknown}": to send a prompt that starts with "-", put it after a ` +
    `"--" that follows a flag (moat -p -- "${unknown}")`;
}

/** moat's subcommands: a first word that must come before every flag. */
export const SUBCOMMANDS: readonly string[] = ["sessions", "mcp"];

/** A parseArgs token: only what `subcommandAfterFlags` reads. */
type Token = { kind: string; index: number; value?: string | undefined };

/**
 * The usage error for a subcommand's name as the first word of the prompt, after flags (`moat
 * --cwd DIR mcp list`), or undefined. `tokens` are parseArgs' tokens of `args`, `at` maps each
 * token's index to its place in `argv` (what the user typed). Words after a `--` are a prompt.
 */
export function subcommandAfterFlags(
  tokens: readonly Token[],
  argv: readonly string[],
  at: readonly number[],
): string | undefined {
  const first = tokens.findIndex((t) => t.kind === "positional" || t.kind === "option-terminator");
  const token = tokens[first];
  if (token?.kind !== "positional" || !SUBCOMMANDS.includes(token.value ?? "")) return undefined;
  const next = tokens[first + 1];
  const words = [at[token.index] as number];
  if (token.value === "mcp" && next?.kind === "positional") words.push(at[next.index] as number);
  const sub = words.map((i) => argv[i] as string);
  const others = argv.filter((_, i) => !words.includes(i));
  const positional = new Set(tokens.filter((t) => t.kind === "positional").map((t) => at[t.index]));
  const ends = new Set(
    tokens.filter((t) => t.kind === "option-terminator").map((t) => at[t.index]),
  );
  const flags = argv.filter((_, i) => !positional.has(i) && !ends.has(i));
  const prompt = argv.filter((_, i) => positional.has(i));
  return `"${sub.join(" ")}" is a subcommand, and subcommands come first: write ` +
    `${moatCommand([...sub, ...others])}; to send "${prompt.join(" ")}" as the prompt, put it ` +
    `after "--": ${moatCommand([...flags, "--", ...prompt])}`;
}
