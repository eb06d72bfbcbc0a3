/**
 * Checkpoints per turn: before a turn's first call that may change files the work tree is
 * recorded (once per turn), and after the turn's last change again, so the index knows what the
 * agent left (`expected`) and which files the turn changed.
 */
import { dirname } from "node:path";
import type { CheckpointStore } from "./store.ts";
import { readTurns, type RewindFs, type TurnEntry, writeTurns } from "./turn_index.ts";

/** The checkpoints of one session's turns. */
export interface TurnRecorder {
  /**
   * Starts a turn: `prompt` is its text, `messages` the conversation's length before it. It
   * starts hashing the work tree at once (while the model thinks), so the checkpoint before the
   * first change only hashes what changed since.
   */
  begin(prompt: string, messages: number): void;
  /** Call before each call that may change files; the turn's first records the checkpoint. */
  beforeChange(): Promise<void>;
  /** Ends the turn: the checkpoint after it and its files, in the index (undefined: no change). */
  end(): Promise<TurnEntry | undefined>;
}

/** What the recorder works with. */
export interface TurnRecorderOptions {
  store: CheckpointStore;
  fs: RewindFs;
  /** The index file (rewindPaths(…).index). */
  index: string;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Told once per failure (a checkpoint that could not be taken); the call goes on. */
  warn: (message: string) => void;
}

/** Creates the recorder of one session. */
export function createTurnRecorder(options: TurnRecorderOptions): TurnRecorder {
  let turn: { prompt: string; messages: number; time: number } | undefined;
  let taken: Promise<TurnEntry | undefined> | undefined;
  let warm: Promise<void> = Promise.resolve();
  const record = async (current: NonNullable<typeof turn>): Promise<TurnEntry | undefined> => {
    await options.fs.mkdirp(dirname(options.index));
    const checkpoint = await options.store.checkpoint(`Before turn: ${current.prompt}`);
    if (!checkpoint.ok) {
      options.warn(`${checkpoint.error}; this turn cannot be rewound`);
      return undefined;
    }
    const entry: TurnEntry = {
      kind: "turn",
      prompt: current.prompt,
      time: current.time,
      before: checkpoint.value.id,
      files: [],
      messages: current.messages,
    };
    // Written at once: a turn that never ends (a crash) can still be rewound.
    return await append(options, entry) ? entry : undefined;
  };
  return {
    begin(prompt, messages) {
      turn = { prompt: firstLine(prompt), messages, time: options.now() };
      taken = undefined;
      // A failure here shows again (and is reported) at the checkpoint itself.
      warm = options.fs.mkdirp(dirname(options.index)).then(() => options.store.prepare())
        .then(() => {}, () => {});
    },
    beforeChange() {
      if (turn === undefined) return Promise.resolve();
      taken ??= record(turn);
      return taken.then(() => {});
    },
    async end() {
      await warm;
      const entry = await taken;
      turn = undefined;
      taken = undefined;
      if (entry === undefined) return undefined;
      const after = await options.store.checkpoint(`After turn: ${entry.prompt}`);
      if (!after.ok) {
        options.warn(`${after.error}; the turn's changes are not known`);
        return entry;
      }
      const files = await options.store.between(entry.before, after.value.id);
      const done: TurnEntry = {
        ...entry,
        after: after.value.id,
        files: files.ok ? files.value.map((f) => f.path) : [],
      };
      await replaceLast(options, entry, done);
      return done;
    },
  };
}

/** The first line of a prompt, at most 200 characters. */
export function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

async function append(options: TurnRecorderOptions, entry: TurnEntry): Promise<boolean> {
  const read = await readTurns(options.fs, options.index);
  if (!read.ok) {
    options.warn(read.error);
    return false;
  }
  await writeTurns(options.fs, options.index, [...read.turns, entry]);
  return true;
}

async function replaceLast(options: TurnRecorderOptions, old: TurnEntry, entry: TurnEntry) {
  const read = await readTurns(options.fs, options.index);
  if (!read.ok) return options.warn(read.error);
  const turns = read.turns.map((t) => t.before === old.before && t.kind === "turn" ? entry : t);
  await writeTurns(options.fs, options.index, turns);
}
