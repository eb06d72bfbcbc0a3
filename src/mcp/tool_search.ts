/**
 * MCP tool search: when the MCP tools' schemas would take more than a budget of the context
 * window (default 10 %), they are deferred (callable, but not sent to the model) and one tool,
 * `search_mcp_tools`, finds them by keyword or exact name. What a search returns becomes offered
 * from the next request on; a deferred tool called by name right away runs anyway.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { AnyTool, Tool } from "../agent/tool.ts";
import { toolSpecs } from "../agent/tool.ts";
import { estimateFixedTokens } from "../agent/compaction/estimate.ts";
import type { ToolSpec } from "../model/types.ts";
import { TOOL_SEARCH_TOOL } from "./names.ts";

/** The share of the context window MCP tool schemas may take before they are deferred. */
export const DEFAULT_BUDGET_PERCENT = 10;
/** The window assumed when the model's is unknown. */
export const FALLBACK_CONTEXT_WINDOW = 128_000;
/** Matches a search returns unless `max_results` says otherwise. */
const DEFAULT_MAX_RESULTS = 5;

const MODES = ["auto", "always", "never"] as const;
/** When MCP tools are deferred behind the search tool. */
export type ToolSearchMode = typeof MODES[number];

const ModeSchema = Type.Union(MODES.map((m) => Type.Literal(m)), {
  description: '"auto" (default): search when the schemas exceed the budget; "always"; "never".',
});

/** Config schema of `mcpToolSearch`: a mode, or `{mode?, budgetPercent?}`. */
export const McpToolSearchSchema = Type.Union([
  // One flat union: the config's errors list the modes.
  ...MODES.map((m) => Type.Literal(m)),
  Type.Object({
    mode: Type.Optional(ModeSchema),
    budgetPercent: Type.Optional(Type.Number({
      exclusiveMinimum: 0,
      maximum: 100,
      description: "The share of the context window (percent, default 10) MCP tool schemas " +
        "may take before they are found by search instead of sent with every request.",
    })),
  }, { additionalProperties: false }),
], {
  description: 'Whether MCP tools are deferred behind a search tool to save context: "auto" ' +
    '(default: when their schemas exceed the budget), "always", "never", or ' +
    '{"mode": …, "budgetPercent": N}.',
});

/** The `mcpToolSearch` setting as the config gives it. */
export type McpToolSearchSetting = Static<typeof McpToolSearchSchema>;

/** How `createMcpClients` defers tools. */
export interface ToolSearchOptions {
  mode: ToolSearchMode;
  /** Estimated tokens the MCP tools' schemas may take in "auto" mode. */
  budgetTokens: number;
}

/** The options of `setting` for a model whose window is `contextWindow` tokens (if known). */
export function toolSearchOptions(
  setting: McpToolSearchSetting | undefined,
  contextWindow: number | undefined,
): ToolSearchOptions {
  const mode = typeof setting === "string" ? setting : setting?.mode ?? "auto";
  const percent = typeof setting === "object"
    ? setting.budgetPercent ?? DEFAULT_BUDGET_PERCENT
    : DEFAULT_BUDGET_PERCENT;
  const window = contextWindow ?? FALLBACK_CONTEXT_WINDOW;
  return { mode, budgetTokens: Math.floor(window * percent / 100) };
}

/** Estimated tokens of the tools' specs (name, description, parameters) in a request. */
export function toolSchemaTokens(tools: readonly AnyTool[]): number {
  return estimateFixedTokens("", specsOf(tools)) - estimateFixedTokens("", []);
}

/** The specs of `tools`, deferred or not. */
function specsOf(tools: readonly AnyTool[]): ToolSpec[] {
  return toolSpecs(tools.map((t) => ({ ...t, deferred: false })));
}

/** Defers MCP tools behind the search tool when they exceed the budget. */
export interface ToolSearch {
  /**
   * What to offer for `tools` (the MCP tools, in order): the same list under the budget; else
   * the search tool, the tools found so far, and the others marked `deferred`.
   */
  offer(tools: readonly AnyTool[], serverOf: (name: string) => string | undefined): AnyTool[];
  /** Whether `tools` are deferred (over the budget, or mode "always"). */
  engaged(tools: readonly AnyTool[]): boolean;
}

const SearchParams = Type.Object({
  query: Type.String({
    minLength: 1,
    description: 'Keywords matched against tool names and descriptions ("+word" must match), ' +
      'or "select:name1,name2" to fetch tools by exact name.',
  }),
  max_results: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 25,
    description: `How many tools to return at most (default ${DEFAULT_MAX_RESULTS}).`,
  })),
}, { additionalProperties: false });

/** Creates the deferral of one set of MCP clients; it remembers the tools found. */
export function createToolSearch(options: ToolSearchOptions): ToolSearch {
  const found = new Set<string>();
  const tokens = new WeakMap<readonly AnyTool[], number>();
  const engaged = (tools: readonly AnyTool[]): boolean => {
    if (options.mode === "never" || tools.length === 0) return false;
    if (options.mode === "always") return true;
    let estimate = tokens.get(tools);
    if (estimate === undefined) {
      estimate = toolSchemaTokens(tools);
      tokens.set(tools, estimate);
    }
    return estimate > options.budgetTokens;
  };
  // The same tools and finds give the same offer (the same objects): the loop then keeps its tool
  // map and specs instead of rebuilding them for every request.
  let last: { tools: readonly AnyTool[]; found: number; offer: AnyTool[] } | undefined;
  return {
    engaged,
    offer(tools, serverOf) {
      if (!engaged(tools)) return [...tools];
      if (last?.tools === tools && last.found === found.size) return [...last.offer];
      const deferred = tools.filter((t) => !found.has(t.name));
      const search = searchTool(tools, deferred, serverOf, found);
      const offer = [
        search,
        ...tools.map((t): AnyTool => found.has(t.name) ? t : { ...t, deferred: true }),
      ];
      last = { tools, found: found.size, offer };
      return [...offer];
    },
  };
}

/** The search tool over `tools`; what it returns joins `found`. */
function searchTool(
  tools: readonly AnyTool[],
  deferred: readonly AnyTool[],
  serverOf: (name: string) => string | undefined,
  found: Set<string>,
): Tool<typeof SearchParams> {
  const perServer = new Map<string, number>();
  for (const t of deferred) {
    const server = serverOf(t.name) ?? "?";
    perServer.set(server, (perServer.get(server) ?? 0) + 1);
  }
  const servers = [...perServer].map(([name, n]) => `"${name}" (${n})`).join(", ");
  return {
    name: TOOL_SEARCH_TOOL,
    label: "MCP tool search",
    description: `${deferred.length} MCP tools are not listed, to save context: those of the ` +
      `servers ${servers === "" ? "(none left)" : servers}. Search them before saying a ` +
      "capability is missing: keywords match their names and descriptions; " +
      '"select:name1,name2" fetches tools by exact name. The matches come back with their full ' +
      "parameter schemas and can be called by name right away.",
    parameters: SearchParams,
    kind: "read",
    concurrencySafe: true,
    execute(args: Static<typeof SearchParams>) {
      const matches = searchTools(tools, args.query, args.max_results ?? DEFAULT_MAX_RESULTS);
      if (matches.length === 0) {
        return Promise.resolve({
          output: `No MCP tool matches "${args.query}". Try other or fewer keywords, or ` +
            `"select:<name>" with a name from an earlier search.`,
        });
      }
      for (const t of matches) found.add(t.name);
      const schemas = specsOf(matches).map((spec) => JSON.stringify(spec));
      return Promise.resolve({
        output: `${matches.length} MCP tool${matches.length === 1 ? "" : "s"} found; call ` +
          `${matches.length === 1 ? "it" : "them"} by name (schemas as JSON, one per line):\n` +
          schemas.join("\n"),
        details: { query: args.query, tools: matches.map((t) => t.name) },
      });
    },
  };
}

/**
 * The tools matching `query`: "select:a,b" by exact name (moat's or the server's own), else
 * scored by keywords (a name part counts most, then the name, then the description), best first.
 */
export function searchTools(
  tools: readonly AnyTool[],
  query: string,
  max: number,
): AnyTool[] {
  const trimmed = query.trim();
  if (trimmed.toLowerCase().startsWith("select:")) {
    const wanted = trimmed.slice("select:".length).split(",").map((n) => n.trim())
      .filter((n) => n !== "");
    const chosen: AnyTool[] = [];
    for (const name of wanted) {
      const tool = tools.find((t) => t.name === name) ??
        tools.find((t) => t.name.endsWith(`__${name}`));
      if (tool !== undefined && !chosen.includes(tool)) chosen.push(tool);
    }
    return chosen.slice(0, max);
  }
  const words = trimmed.toLowerCase().split(/\s+/).filter((w) => w !== "");
  const required = words.filter((w) => w.startsWith("+") && w.length > 1).map((w) => w.slice(1));
  const terms = words.map((w) => w.replace(/^\+/, "")).flatMap((w) => w.split(/[^a-z0-9]+/))
    .filter((w) => w !== "");
  const scored: Array<{ tool: AnyTool; score: number }> = [];
  for (const tool of tools) {
    const name = tool.name.toLowerCase();
    const parts = name.split(/[_-]+/);
    const description = tool.description.toLowerCase();
    if (required.some((r) => !name.includes(r) && !description.includes(r))) continue;
    let score = 0;
    for (const term of terms) {
      if (parts.includes(term)) score += 10;
      else if (name.includes(term)) score += 5;
      if (new RegExp(`\\b${term}\\b`).test(description)) score += 2;
      else if (description.includes(term)) score += 1;
    }
    if (score > 0) scored.push({ tool, score });
  }
  scored.sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name));
  return scored.slice(0, max).map((s) => s.tool);
}
