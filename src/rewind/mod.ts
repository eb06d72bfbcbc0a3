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
