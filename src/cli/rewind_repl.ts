/**
 * `/rewind` in interactive mode: without an argument the session's turns (prompt, files
 * changed); `/rewind N` restores the files to before turn N, `/rewind N chat` forgets the
 * conversation from that turn on too, `/rewind undo` undoes the last rewind; `--force`
 * overwrites files someone else changed since.
 */
import type { Message } from "../model/types.ts";
import { messageText } from "../session/catalog.ts";
import type { SessionWriter } from "../session/store.ts";
import { computeProtection, type Grants, type ScanOps } from "../policy/mod.ts";
import { readTurns, rewindTo, type TurnEntry, undoTurn } from "../rewind/mod.ts";
import { sessionStore, writablePath } from "./rewind.ts";
import { turnsListing } from "./rewind_command.ts";
import type { RewindDeps } from "./setup.ts";

/** What `/rewind` works on. */
export interface ReplRewindContext {
  deps: RewindDeps | undefined;
  workspace: string;
  env: Record<string, string>;
  grants: Grants;
  ops: ScanOps;
  writer: SessionWriter | null;
  /** The conversation (truncated in place by `/rewind N chat`). */
  history: Message[];
}

const USAGE = "/rewind N restores the files to before turn N (add 'chat' to forget the " +
  "conversation from there, '--force' to overwrite files changed by someone else); /rewind undo";

/** Runs `/rewind ARG`; returns the lines to show. */
export async function replRewind(arg: string, context: ReplRewindContext): Promise<string> {
  if (context.deps === undefined || context.writer === null) {
    return "Rewind needs a session: this run keeps none (--no-session).";
  }
  const { paths, store } = sessionStore(context.deps, context.writer.path, context.workspace);
  const read = await readTurns(context.deps.fs, paths.index);
  if (!read.ok) return read.error;
  const words = arg.split(/\s+/).filter((w) => w !== "");
  if (words.length === 0) return `${turnsListing(read.turns)}${USAGE}`;
  const to = words[0] === "undo" ? undoTurn(read.turns) : Number(words[0]);
  const rest = words.slice(1).filter((w) => w !== "chat" && w !== "--force");
  if (to === undefined) return "No rewind to undo in this session.";
  if (!Number.isInteger(to) || to < 1 || rest.length > 0) return USAGE;
  const { protection } = computeProtection(context.grants, {
    workspace: context.workspace,
    env: context.env,
    ops: context.ops,
  });
  const done = await rewindTo(store, read.turns, to, {
    force: words.includes("--force"),
    allow: writablePath(context.workspace, context.grants, protection),
    fs: context.deps.fs,
    index: paths.index,
    now: Date.now,
  });
  if (!done.ok) return done.error;
  const r = done.value;
  const lines = [`Rewound the files to before turn ${to}: ${r.restored.length} restored.`];
  for (const p of r.kept) {
    lines.push(`  kept ${p}: changed by someone else since (/rewind ${to} --force overwrites it)`);
  }
  for (const p of r.outside) lines.push(`  left ${p}: outside the write grants`);
  if (words.includes("chat")) lines.push(rewindChat(read.turns[to - 1]!, context));
  lines.push(`Undo with /rewind undo.`);
  return lines.join("\n");
}

/** Cuts the conversation to before the turn, in the session file too (as a compaction line). */
function rewindChat(entry: TurnEntry, context: ReplRewindContext): string {
  const at = entry.messages;
  const first = at === undefined ? undefined : context.history[at];
  if (
    at === undefined || first?.role !== "user" || entry.kind !== "turn" ||
    !messageText(first).trim().startsWith(entry.prompt)
  ) {
    return "The conversation was not rewound: it changed since that turn (compacted or cleared).";
  }
  const before = context.history.length;
  context.history.length = at;
  context.writer?.appendCompaction({
    reason: "rewind",
    tokensBefore: 0,
    tokensAfter: 0,
    replaced: before,
    messages: [...context.history],
  });
  return `The conversation is back to before turn ${at === 0 ? "1" : "that turn"} (${
    before - at
  } messages forgotten; they stay in the session file).`;
}
