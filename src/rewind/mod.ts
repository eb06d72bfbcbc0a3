/** The checkpoint store behind `/rewind` (issue 30): snapshots of the work tree, restored safely. */
export {
  type ChangedPath,
  type Checkpoint,
  type CheckpointStore,
  type CheckpointStoreOptions,
  createCheckpointStore,
  type RestoreOptions,
  type RestoreReport,
  type StoreResult,
} from "./store.ts";
export type { GitCommand, GitOps, GitResult } from "./git_ops.ts";
export {
  pruneOrphans,
  readTurns,
  type RewindFs,
  type RewindPaths,
  rewindPaths,
  type TurnEntry,
  writeTurns,
} from "./turn_index.ts";
export { createTurnRecorder, firstLine, type TurnRecorder } from "./recorder.ts";
export { planRewind, type RewindOptions, type RewindPlan, rewindTo, undoTurn } from "./rewind.ts";
