/**
 * The machine-specific parts of a tool result (paths, spill-file names, durations, timestamps),
 * replaced with placeholders so a recorded and a live result can be compared, and a recording's
 * paths relocated to this machine's.
 */

/** Machine-specific parts of one side (recorded or live) that are replaced before comparing. */
export interface NormalizeContext {
  /** The workspace directory (absolute). */
  workspace: string;
  /** The user's home directory. */
  home?: string;
}

/** Characters that continue a path segment (besides "." and the separators). */
const P = String.raw`\p{L}\p{N}_\-+@~%`;
/** Not inside a longer path: not preceded by a path character, a dot or a separator. */
const NOT_AFTER_PATH = String.raw`(?<![${P}.\/\\])`;
/** The path ends here: next is a separator, the end, or a character that cannot continue it. */
const PATH_END = String.raw`(?![${P}]|\.[${P}])`;

const SPILL_DIR = new RegExp(
  String.raw`(?:<(?:workspace|home)>[\/\\]|${NOT_AFTER_PATH}(?:[A-Za-z]:)?)` +
    String.raw`(?:[${P}.\/\\]*[\/\\])?moat-run-[\p{L}\p{N}_\-]+${PATH_END}`,
  "gu",
);
const SPILL_FILE = new RegExp(
  String.raw`(?<![${P}.])bash-[0-9a-z]+-[0-9a-f]{8}\.(stdout|stderr)\.log${PATH_END}`,
  "gu",
);
/** A background job's log file (`job-ID-MILLISECONDS.log`, src/tools/bash/jobs.ts). */
const JOB_LOG = new RegExp(
  String.raw`(?<![${P}.])job-([\p{L}\p{N}_]+)-\d+\.log${PATH_END}`,
  "gu",
);
/** A process id as the job tool and many programs show it ("pid 4242"). */
const PID = /(?<![\p{L}\p{N}_])pid \d+(?![\p{L}\p{N}_])/gu;
const TIMESTAMP = new RegExp(
  String.raw`(?<![\p{L}\p{N}])\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?` +
    String.raw`(?:Z|[+\-]\d{2}(?::?\d{2})?)?(?![\p{L}\p{N}])`,
  "gu",
);
const DURATION = new RegExp(
  String.raw`(?<![\p{L}\p{N}_.\/\\\-])(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)? ?` +
    String
      .raw`(?:ns|µs|μs|us|ms|s|secs?|seconds?|milliseconds?)(?![\p{L}\p{N}_\-\/\\]|\.[\p{L}\p{N}])`,
  "gu",
);

/** The contexts' paths as a list of [path, placeholder], workspaces before homes. */
export function pathReplacements(...contexts: NormalizeContext[]): Array<[string, string]> {
  const entries: Array<[string, string]> = contexts.map((c) => [c.workspace, "<workspace>"]);
  for (const context of contexts) {
    if (context.home !== undefined) entries.push([context.home, "<home>"]);
  }
  return entries;
}

/**
 * Replaces each whole path `from` (never a part of a longer path such as "/work/main2") with its
 * `to`, longest first; "/" and "" are never replaced. Trailing separators of `from` are ignored.
 */
export function replacePaths(
  text: string,
  replacements: ReadonlyArray<readonly [from: string, to: string]>,
): string {
  const entries: Array<[string, string]> = [];
  for (const [from, to] of replacements) {
    let trimmed = from;
    while (trimmed.length > 1 && /[\/\\]$/.test(trimmed)) trimmed = trimmed.slice(0, -1);
    if (trimmed.length < 2 || /^[A-Za-z]:$/.test(trimmed)) continue;
    if (entries.some(([p]) => p === trimmed)) continue;
    entries.push([trimmed, to]);
  }
  if (entries.length === 0) return text;
  // Stable sort: on equal length the earlier entry wins.
  entries.sort((a, b) => b[0].length - a[0].length);
  // One pass with alternatives longest first: a replacement is never matched again, and a path
  // that fails its end check (e.g. "/work/main2") falls back to a shorter one ("/work").
  const pattern = new RegExp(
    `${NOT_AFTER_PATH}(?:${entries.map(([p]) => RegExp.escape(p)).join("|")})${PATH_END}`,
    "gu",
  );
  const byPath = new Map(entries);
  return text.replace(pattern, (match) => byPath.get(match) ?? match);
}

/** Options of normalizeResultText. */
export interface NormalizeOptions {
  /**
   * The text is a command's output, which shows times and process ids that change from run to
   * run: durations, ISO timestamps and "pid N" become placeholders too. Default false, so a changed file is never hidden.
   */
  commandOutput?: boolean;
}

/**
 * Replaces the workspace and home paths, bash spill-file and job log names with placeholders, and
 * for command output also durations, timestamps and process ids.
 */
export function normalizeResultText(
  text: string,
  context: NormalizeContext,
  options: NormalizeOptions = {},
): string {
  return normalizeWithPaths(text, pathReplacements(context), options);
}

/** normalizeResultText with the path replacements already listed. */
export function normalizeWithPaths(
  text: string,
  paths: ReadonlyArray<readonly [string, string]>,
  options: NormalizeOptions = {},
): string {
  const out = replacePaths(text, paths)
    .replace(SPILL_DIR, "<spill-dir>")
    .replace(SPILL_FILE, "bash-<id>.$1.log")
    .replace(JOB_LOG, "job-$1-<time>.log");
  if (options.commandOutput !== true) return out;
  return out
    .replace(TIMESTAMP, "<time>")
    .replace(DURATION, "<duration>")
    .replace(PID, "pid <pid>");
}
