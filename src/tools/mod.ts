/** Public API of the built-in tools. */
export * from "./types.ts";
export * from "./ops.ts";
export * from "./registry.ts";
export { createReadTool, type ReadArgs, ReadParams, type ReadToolOptions } from "./read.ts";
export { createEditTool, type EditArgs, EditParams, type EditToolOptions } from "./edit.ts";
export { createWriteTool, type WriteArgs, WriteParams, type WriteToolOptions } from "./write.ts";
export { createGrepTool, type GrepArgs, GrepParams, type GrepToolOptions } from "./grep.ts";
export { createFindTool, type FindArgs, FindParams, type FindToolOptions } from "./find.ts";
export { createLsTool, type LsArgs, LsParams, type LsToolOptions } from "./ls.ts";
export { type BashArgs, BashParams, type BashToolOptions, createBashTool } from "./bash.ts";
export { displayPath, realLocation, resolvePath } from "./_paths.ts";
export {
  truncateHead,
  truncateLine,
  truncateMiddle,
  truncateTail,
  type TruncationResult,
} from "./_truncate.ts";
