/**
 * The tool contract, re-exported for the folders that import it from here: it is owned by the
 * agent core (src/agent/tool.ts), which calls it; the tools implement it.
 */
export type {
  AnyTool,
  Tool,
  ToolContext,
  ToolKind,
  ToolLocation,
  ToolOutput,
  ToolUpdate,
} from "../agent/tool.ts";
