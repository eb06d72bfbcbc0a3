/**
 * The rewind checkpoints wired into a run: a checkpoint before each turn's first call that may
 * change files (any tool but the read-only ones: edit, write, bash, MCP tools) and after the
 * turn, in the session's rewind directory next to its file on the host (src/rewind/).
 */
import { dirname, relative } from "node:path";
import type { ToolCallGate } from "../agent/mod.ts";
import type { UserMessage } from "../model/types.ts";
import { messageText } from "../session/catalog.ts";
import { findProtection, type Grants, isWithin, type Protection } from "../policy/mod.ts";
import {
  type CheckpointStore,
  createCheckpointStore,
  createTurnRecorder,
  pruneOrphans,
  type RewindPaths,
  rewindPaths,
  type TurnRecorder,
} from "../rewind/mod.ts";
import type { RewindDeps } from "./setup.ts";

/** The checkpoints of an engine's runs. */
export interface RunCheckpoints {
  /** Wraps the run's gate: an allowed call that may change files waits for the checkpoint. */
  gate(inner: ToolCallGate): ToolCallGate;
  /** Runs one prompt's turn with its checkpoints (none without a session file). */
  turn<T>(
    session: { path: string; messages: number } | null,
    prompt: UserMessage,
    run: () => Promise<T>,
  ): Promise<T>;
}

/** The checkpoint store of a session file's rewind directory. */
export function sessionStore(
  deps: RewindDeps,
  sessionPath: string,
  workspace: string,
): { paths: RewindPaths; store: CheckpointStore } {
  const paths = rewindPaths(sessionPath);
  const store = createCheckpointStore({ gitDir: paths.gitDir, workTree: workspace, git: deps.git });
  return { paths, store };
}

/** Creates the checkpoints of one engine (one workspace, possibly several sessions). */
export function createRunCheckpoints(
  deps: RewindDeps,
  options: { workspace: string; now: () => number; warn: (message: string) => void },
): RunCheckpoints {
  const recorders = new Map<string, TurnRecorder>();
  let current: TurnRecorder | undefined;
  const recorderOf = (path: string) => {
    let recorder = recorders.get(path);
    if (recorder === undefined) {
      const { paths, store } = sessionStore(deps, path, options.workspace);
      recorder = createTurnRecorder({ store, fs: deps.fs, index: paths.index, ...options });
      recorders.set(path, recorder);
    }
    return recorder;
  };
  return {
    gate: (inner) => async (call) => {
      const decision = await inner(call);
      const allowed = decision === undefined || decision.block === false;
      if (allowed && call.tool.kind !== "read") await current?.beforeChange();
      return decision;
    },
    async turn(session, prompt, run) {
      if (session === null) return await run();
      // Checkpoints go with their session: a session file removed takes its rewind dir along.
      if (!recorders.has(session.path)) await pruneOrphans(deps.fs, dirname(session.path));
      const recorder = recorderOf(session.path);
      recorder.begin(messageText(prompt), session.messages);
      current = recorder;
      try {
        return await run();
      } finally {
        current = undefined;
        await recorder.end();
      }
    },
  };
}

/**
 * Whether the rewind may touch a path of the work tree (relative): inside the write grants,
 * not denied, not ignored and not protected.
 */
export function writablePath(
  workspace: string,
  grants: Grants,
  protection: Protection | undefined,
): (path: string) => boolean {
  return (path) => {
    const abs = `${workspace}/${path}`;
    if (relative(workspace, abs).startsWith("..")) return false;
    const granted = grants.write === true || grants.write.some((w) => isWithin(abs, w));
    if (!granted || grants.denyWrite.some((d) => isWithin(abs, d))) return false;
    // An ignored path is not there for the tools, so a rewind leaves it alone too.
    if (grants.ignoreRead.some((d) => isWithin(abs, d))) return false;
    return protection === undefined || findProtection(protection, abs) === undefined;
  };
}
