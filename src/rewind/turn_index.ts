/**
 * The turn index of one session's checkpoints: a small JSON file next to the private git
 * directory (`<session>.rewind/turns.json`), one entry per turn that changed (or could have
 * changed) files, and one per rewind, so a rewind is itself listed and can be undone.
 */

/** The file operations of the rewind area; the Deno default is src/sys/rewind_fs.ts. */
export interface RewindFs {
  /** The file's text, or null when it does not exist. */
  readTextFile(path: string): Promise<string | null>;
  /** Replaces the file's text at once (a temporary file renamed over it), creating parents. */
  writeTextFile(path: string, text: string): Promise<void>;
  /** Creates a directory (private to the user) and its parents. */
  mkdirp(path: string): Promise<void>;
  /** Removes a directory and everything in it; nothing when it does not exist. */
  removeTree(path: string): Promise<void>;
  /** The names of a directory's entries, or null when it does not exist. */
  listNames(path: string): Promise<string[] | null>;
}

/** One turn (or rewind) with its checkpoints. */
export interface TurnEntry {
  /** "turn": a prompt's run; "rewind": a restore (rewinding to it undoes the restore). */
  kind: "turn" | "rewind";
  /** The prompt's first line, or what was rewound. */
  prompt: string;
  /** When it started, in milliseconds since the epoch. */
  time: number;
  /** The checkpoint before its first change. */
  before: string;
  /** The checkpoint after its last change; absent when the run did not end (a crash). */
  after?: string;
  /** The paths it changed (between `before` and `after`). */
  files: string[];
  /** How many messages the conversation held before the turn (for rewinding it too). */
  messages?: number;
}

/** Where one session's checkpoints live: its git directory and its index. */
export interface RewindPaths {
  dir: string;
  gitDir: string;
  index: string;
}

/** The rewind directory of a session file (`….jsonl` → `….rewind/`), next to it on the host. */
export function rewindPaths(sessionPath: string): RewindPaths {
  const dir = `${sessionPath.replace(/\.jsonl$/, "")}.rewind`;
  return { dir, gitDir: `${dir}/git`, index: `${dir}/turns.json` };
}

/** The entries of an index, oldest first; a missing index is empty, a broken one an error. */
export async function readTurns(
  fs: RewindFs,
  path: string,
): Promise<{ ok: true; turns: TurnEntry[] } | { ok: false; error: string }> {
  const text = await fs.readTextFile(path);
  if (text === null) return { ok: true, turns: [] };
  try {
    const data = JSON.parse(text) as { turns?: unknown };
    if (Array.isArray(data.turns) && data.turns.every(isEntry)) {
      return { ok: true, turns: data.turns };
    }
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
  }
  return {
    ok: false,
    error: `The rewind index "${path}" is not valid: remove it to start the checkpoints afresh`,
  };
}

/** Writes the index. */
export function writeTurns(fs: RewindFs, path: string, turns: readonly TurnEntry[]): Promise<void> {
  return fs.writeTextFile(path, JSON.stringify({ version: 1, turns }, null, 1) + "\n");
}

function isEntry(v: unknown): v is TurnEntry {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  return (e.kind === "turn" || e.kind === "rewind") && typeof e.prompt === "string" &&
    typeof e.time === "number" && typeof e.before === "string" &&
    (e.after === undefined || typeof e.after === "string") && Array.isArray(e.files) &&
    e.files.every((f) => typeof f === "string");
}

/**
 * Removes the rewind directories of `sessionsDir` whose session file is gone: checkpoints go
 * with their session. Returns the names removed.
 */
export async function pruneOrphans(fs: RewindFs, sessionsDir: string): Promise<string[]> {
  const names = await fs.listNames(sessionsDir) ?? [];
  const sessions = new Set(names.filter((n) => n.endsWith(".jsonl")).map((n) => n.slice(0, -6)));
  const orphans = names.filter((n) => n.endsWith(".rewind") && !sessions.has(n.slice(0, -7)));
  for (const name of orphans) await fs.removeTree(`${sessionsDir}/${name}`);
  return orphans;
}
