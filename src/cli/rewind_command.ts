/**
 * `moat rewind [--session ID] (--to N | --undo | --list) [--force]`: the workspace's files back
 * to before turn N of a session (its newest by default), headless. `--list` alone lists the
 * turns; with `--to`/`--undo` it shows what the rewind would change. Exit codes: 0 done, 1 files
 * kept because someone else changed them (reported) or the store failed, 2 usage.
 */
import { resolve } from "node:path";
import { findSessionById } from "../session/catalog.ts";
import { findLatestSession, loadSession } from "../session/store.ts";
import { computeProtection, type Grants, type ScanOps } from "../policy/mod.ts";
import {
  planRewind,
  pruneOrphans,
  readTurns,
  type RewindPlan,
  rewindTo,
  type TurnEntry,
  undoTurn,
} from "../rewind/mod.ts";
import { EXIT, usageError } from "./exit.ts";
import { type CliFs, type Terminal, writeMessage } from "./io.ts";
import { workspaceSessionDir } from "./sessions.ts";
import { sessionStore, writablePath } from "./rewind.ts";
import type { RewindDeps } from "./setup.ts";
import type { RewindArgs } from "./rewind_args.ts";

/** What `moat rewind` runs with. */
export interface RewindContext {
  env: Record<string, string>;
  cwd: string;
  terminal: Terminal;
  fs: CliFs;
  paths: ScanOps;
  deps: RewindDeps;
}

/** Runs `moat rewind`; returns the exit code. */
export async function rewindCommand(args: RewindArgs, context: RewindContext): Promise<number> {
  const { terminal, fs } = context;
  const workspace = await fs.realPath(resolve(context.cwd, args.cwd ?? "."));
  if (workspace === null) {
    return usageError(
      terminal,
      `No directory "${args.cwd ?? context.cwd}": pass an existing --cwd`,
    );
  }
  const dir = await workspaceSessionDir(context.env, workspace);
  if (dir === undefined) {
    return usageError(terminal, "No state directory: set HOME or XDG_STATE_HOME");
  }
  await pruneOrphans(context.deps.fs, dir);
  const found = args.session === undefined
    ? await findLatestSession(fs, dir)
    : await findSessionById(fs, dir, args.session).then((r) => r.ok ? r.path : null);
  if (found === null) {
    return usageError(
      terminal,
      args.session === undefined
        ? "This workspace has no sessions yet: nothing to rewind"
        : `No session "${args.session}" in this workspace: list them with moat sessions`,
    );
  }
  const loaded = await loadSession(fs, found);
  if (!loaded.ok) return usageError(terminal, loaded.error);
  const { paths, store } = sessionStore(context.deps, found, workspace);
  const read = await readTurns(context.deps.fs, paths.index);
  if (!read.ok) return failed(terminal, read.error);
  const turns = read.turns;
  const to = args.undo ? undoTurn(turns) : args.to;
  if (args.undo && to === undefined) {
    return usageError(terminal, "This session has no rewind to undo");
  }
  if (to === undefined) {
    writeMessage(terminal, turnsListing(turns), "stdout");
    return EXIT.ok;
  }
  const grants = sessionGrants(loaded.session.header.grants, workspace);
  const { protection } = computeProtection(grants, {
    workspace,
    env: context.env,
    ops: context.paths,
  });
  const options = { force: args.force, allow: writablePath(workspace, grants, protection) };
  if (args.list) {
    const plan = await planRewind(store, turns, to, options);
    if (!plan.ok) return failed(terminal, plan.error);
    writeMessage(terminal, planText(plan.value), "stdout");
    return EXIT.ok;
  }
  const done = await rewindTo(store, turns, to, {
    ...options,
    fs: context.deps.fs,
    index: paths.index,
    now: Date.now,
  });
  if (!done.ok) return failed(terminal, done.error);
  const r = done.value;
  const lines = [`Rewound to before turn ${to}: ${r.restored.length} path(s) restored.`];
  for (const p of r.restored) lines.push(`  restored ${p}`);
  for (const p of r.kept) {
    lines.push(`  kept ${p} (changed by someone else since; --force overwrites it)`);
  }
  for (const p of r.outside) lines.push(`  left ${p} (outside the write grants)`);
  lines.push(`Undo it with: moat rewind --undo (or --to ${done.value.turns.length})`);
  writeMessage(terminal, lines.join("\n") + "\n", "stdout");
  return r.kept.length > 0 ? 1 : EXIT.ok;
}

function failed(terminal: Terminal, message: string): number {
  writeMessage(terminal, `moat: ${message}\n`);
  return 1;
}

/** The turns, numbered, with the files each changed. */
export function turnsListing(turns: readonly TurnEntry[]): string {
  if (turns.length === 0) return "No checkpoints yet: no turn of this session changed a file.\n";
  return turns.map((t, i) => {
    const files = t.files.length === 0 ? "no files" : t.files.join(", ");
    return `${String(i + 1).padStart(3)}  ${t.prompt}  (${files})`;
  }).join("\n") + "\n";
}

/** What a planned rewind would do. */
export function planText(plan: RewindPlan): string {
  const lines = [`Rewinding to before turn ${plan.turn} (${plan.entry.prompt}) would:`];
  const verb = { added: "remove", deleted: "restore", modified: "restore" } as const;
  for (const c of plan.restore) lines.push(`  ${verb[c.change]} ${c.path}`);
  for (const p of plan.kept) {
    lines.push(`  keep ${p} (changed by someone else since; --force overwrites it)`);
  }
  for (const p of plan.outside) lines.push(`  leave ${p} (outside the write grants)`);
  if (plan.restore.length + plan.kept.length + plan.outside.length === 0) {
    lines.push("  change nothing");
  }
  return lines.join("\n") + "\n";
}

/** The session's write grants (its header), or the workspace alone when they cannot be read. */
function sessionGrants(header: unknown, workspace: string): Grants {
  const g = (typeof header === "object" && header !== null ? header : {}) as Partial<Grants>;
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === "string");
  const write = g.write === true || strings(g.write) ? g.write! : [workspace];
  return {
    read: [workspace],
    write,
    run: [],
    net: [],
    env: [],
    denyRead: [],
    denyWrite: strings(g.denyWrite) ? g.denyWrite! : [],
    denyRun: [],
    denyNet: [],
    ignoreRead: strings(g.ignoreRead) ? g.ignoreRead! : [],
    ignoreEnv: [],
    namedWrite: strings(g.namedWrite) ? g.namedWrite! : [],
    allowAll: false,
    explicit: { read: false, write: false, run: false, net: false, env: false },
  };
}
