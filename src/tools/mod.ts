/**
 * Public API of the built-in tools: the factories, the registry, the operation interfaces they
 * take, and the path and truncation helpers other folders share. The tool contract they implement
 * is the agent core's (src/agent/tool.ts), re-exported here.
 */
// The contract the tools implement, owned by the agent core.
export type * from "../agent/tool.ts";
export * from "./ops.ts";
export * from "./registry.ts";
export { createReadTool, type ReadArgs, ReadParams, type ReadToolOptions } from "./read.ts";
export { createEditTool, type EditArgs, EditParams, type EditToolOptions } from "./edit.ts";
export {
  asNewFileWrite,
  createWriteTool,
  type WriteArgs,
  WriteParams,
  type WriteToolOptions,
} from "./write.ts";
export { createGrepTool, type GrepArgs, GrepParams, type GrepToolOptions } from "./grep/mod.ts";
export {
  type ScanThread,
  type ScanThreads,
  serveScanThread,
  type ThreadPort,
  type ThreadRequest,
} from "./grep/threads.ts";
export { createFindTool, type FindArgs, FindParams, type FindToolOptions } from "./find.ts";
export { createLsTool, type LsArgs, LsParams, type LsToolOptions } from "./ls.ts";
export {
  type BashArgs,
  type BashDetails,
  BashParams,
  type BashToolOptions,
  createBashTool,
  JOB_ID_ARG,
} from "./bash/mod.ts";
export {
  createFetchTool,
  type FetchArgs,
  type FetchedResponse,
  type FetchNet,
  FetchParams,
  type FetchPermissions,
  type FetchToolOptions,
  netTarget,
  type NetVerdict,
} from "./fetch/mod.ts";
export { type JobArgs, type JobDetails, JobParams, stateLine } from "./bash/job_tool.ts";
export type { JobInfo } from "./bash/jobs.ts";
export { displayPath, realLocation, resolvePath } from "./paths.ts";
export {
  formatSize,
  truncateHead,
  truncateLine,
  truncateTail,
  type TruncationResult,
} from "./truncate.ts";
export {
  DIFF_MAX_BYTES,
  type EditCallArgs,
  type FileChange,
  previewEdit,
  type PreviewOptions,
  type PreviewReader,
  previewWrite,
  type WriteCallArgs,
  writeChange,
} from "./change.ts";
