/**
 * Effective settings of a run. Precedence: flags > environment > project `.moat/config.json` >
 * user `$XDG_CONFIG_HOME/moat/config.json` > defaults. Config files are validated with TypeBox;
 * an invalid one is reported naming the file, the field and the problem.
 */
import { join } from "node:path";
import {
  type CliFlags,
  type OutputFormat,
  parsePositiveInteger,
  SANDBOX_MODES,
  type SandboxMode,
} from "./args.ts";
import { type CliFs, readTextOrReason } from "./io.ts";
import { type AskTrust, decideProjectTrust, type ProjectTrustInfo } from "./trust.ts";
import type { Prices } from "../report/usage.ts";
import { type McpServerConfig, parseMcpServers } from "../mcp/config.ts";
import { type CompatSettings, type ConfigFile, parseConfigFile } from "./config_schema.ts";
import type { HookLayers } from "../hooks/mod.ts";

/** The model used when nothing else names one. */
export const DEFAULT_MODEL = "gpt-4.1";
/** The variable holding the API key unless `--api-key-env` says otherwise. */
export const DEFAULT_API_KEY_ENV = "OPENAI_API_KEY";
/** Max model turns in print mode unless configured. */
export const DEFAULT_PRINT_MAX_TURNS = 100;

export {
  type CompatSettings,
  type ConfigFile,
  ConfigFileSchema,
  parseConfigFile,
} from "./config_schema.ts";

/** An MCP server and where it was configured ("flag": --mcp-config). */
export interface ConfiguredMcpServer {
  server: McpServerConfig;
  origin: "user" | "project" | "flag";
  /** The file that configured it. */
  file: string;
}

/** The settings a run uses, after precedence. */
export interface Settings extends Pick<ConfigFile, "provider"> {
  model: string;
  baseUrl?: string;
  apiKeyEnv: string;
  /** Undefined means unlimited (interactive default). */
  maxTurns?: number;
  /** The model's context window, when the flags or a config file give it. */
  contextWindow?: number;
  /** Compact the history when it outgrows the context window. */
  compaction: boolean;
  tools?: string[];
  bashTimeout?: number;
  sandbox: SandboxMode;
  output: OutputFormat;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  contextFiles: boolean;
  failOnDeny: boolean;
  noPrompt: boolean;
  temperature?: number;
  maxOutputTokens?: number;
  headers?: Record<string, string>;
  compat?: CompatSettings;
  /** Token prices, for the cost of a run. */
  prices?: Prices;
  /** Token prices per model, from the user config only (they win over `prices`). */
  pricing?: Record<string, Prices>;
  /** Wall-time limit of a run in seconds. */
  maxWallTime?: number;
  maxToolCalls?: number;
  maxTokensTotal?: number;
  /** What a run may cost, in the prices' currency. */
  maxCost?: number;
  /** MCP servers from the config files (a trusted project's override the user's by name). */
  mcpServers: ConfiguredMcpServer[];
  /** When MCP tools are deferred behind a search tool (default "auto" at 10 % of the window). */
  mcpToolSearch?: ConfigFile["mcpToolSearch"];
  /** Config files that were found and applied, most specific last. */
  configFiles: string[];
  /** Whether the project is trusted and which of its settings applied. */
  project: ProjectTrustInfo;
  /** Things the user should know about the settings (shown once the run starts). */
  warnings: string[];
  /** The `hooks` of the user config and of the project's, when trusted. */
  hooks: HookLayers;
  /** The user config's `permissions` (sets for -P) and its file. */
  permissionSets?: { file: string; value: unknown };
}

/** The outcome of resolving settings. */
export type SettingsResult = { ok: true; settings: Settings } | { ok: false; error: string };

/** Where the user config file lives, or undefined when HOME is unknown. */
export function userConfigPath(env: Record<string, string>): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && xdg.startsWith("/")) return join(xdg, "moat", "config.json");
  const home = env.HOME ?? env.USERPROFILE;
  return home === undefined || home === ""
    ? undefined
    : join(home, ".config", "moat", "config.json");
}

/** The user's config directory for moat (holding config.json and AGENTS.md), if known. */
export function userConfigDir(env: Record<string, string>): string | undefined {
  const path = userConfigPath(env);
  return path === undefined ? undefined : join(path, "..");
}

/** The project config file of a workspace. */
export function projectConfigPath(workspace: string): string {
  return join(workspace, ".moat", "config.json");
}

async function readConfig(
  fs: CliFs,
  path: string,
): Promise<{ ok: true; config: ConfigFile | null } | { ok: false; error: string }> {
  const read = await readTextOrReason(fs, path);
  if ("reason" in read) {
    return { ok: false, error: `Could not read config file "${path}": ${read.reason}` };
  }
  if (read.text === null) return { ok: true, config: null };
  return parseConfigFile(path, read.text);
}

/** Settings taken from environment variables (MOAT_*, OPENAI_BASE_URL). */
function configFromEnv(
  env: Record<string, string>,
): { ok: true; config: ConfigFile } | { ok: false; error: string } {
  const config: ConfigFile = {};
  const str = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const model = str("MOAT_MODEL");
  if (model !== undefined) config.model = model;
  const baseUrl = str("MOAT_BASE_URL") ?? str("OPENAI_BASE_URL");
  if (baseUrl !== undefined) config.baseUrl = baseUrl;
  const keyEnv = str("MOAT_API_KEY_ENV");
  if (keyEnv !== undefined) config.apiKeyEnv = keyEnv;
  const maxTurns = str("MOAT_MAX_TURNS");
  if (maxTurns !== undefined) {
    const n = parsePositiveInteger(maxTurns);
    if (n === undefined) {
      return {
        ok: false,
        error:
          `Invalid environment variable MOAT_MAX_TURNS: expected a positive integer, got "${maxTurns}"`,
      };
    }
    config.maxTurns = n;
  }
  const sandbox = str("MOAT_SANDBOX");
  if (sandbox !== undefined) {
    if (!(SANDBOX_MODES as readonly string[]).includes(sandbox)) {
      return {
        ok: false,
        error: `Invalid environment variable MOAT_SANDBOX: expected one of ${
          SANDBOX_MODES.join(", ")
        }, got "${sandbox}"`,
      };
    }
    config.sandbox = sandbox as SandboxMode;
  }
  return { ok: true, config };
}

/**
 * Resolves the effective settings of a run from flags, environment and config files. Sensitive
 * settings of the project config apply only in a trusted project (`--trust-project`, the user
 * config's `trustedProjects`, or `askTrust`'s answer); without `askTrust` an untrusted project
 * with sensitive settings in effect is an error, before anything leaves the machine.
 */
export async function resolveSettings(
  flags: CliFlags,
  options: { env: Record<string, string>; workspace: string; fs: CliFs; askTrust?: AskTrust },
): Promise<SettingsResult> {
  const configFiles: string[] = [];
  const userPath = userConfigPath(options.env);
  const projectPath = projectConfigPath(options.workspace);
  const files: Array<ConfigFile | null> = [];
  for (const path of [userPath, projectPath]) {
    const result = path === undefined
      ? { ok: true as const, config: null }
      : await readConfig(options.fs, path);
    if (!result.ok) return result;
    files.push(result.config);
    if (result.config !== null && path !== undefined) configFiles.push(path);
  }
  const [user, projectFile] = files as [ConfigFile | null, ConfigFile | null];
  const fromEnv = configFromEnv(options.env);
  if (!fromEnv.ok) return fromEnv;
  const fromFlags = flagLayer(flags);
  const warnings: string[] = [];

  // The project's own layer, minus what only the user may say.
  const project: ConfigFile = { ...projectFile };
  if (project.pricing !== undefined) {
    delete project.pricing;
    warnings.push(
      `"pricing" in the project config "${projectPath}" has no effect: per-model prices (which ` +
        "--max-cost relies on) come from the user config only",
    );
  }
  if (project.permissions !== undefined) {
    delete project.permissions;
    warnings.push(
      `"permissions" in the project config "${projectPath}" has no effect: a workspace's ` +
        "permission sets come from its deno.json, the user's from the user config",
    );
  }
  if (project.trustedProjects !== undefined) {
    delete project.trustedProjects;
    warnings.push(
      `"trustedProjects" in the project config "${projectPath}" has no effect: a project ` +
        "cannot trust itself; list trusted projects in the user config",
    );
  }
  const trust = await decideProjectTrust(project, {
    ...options,
    trustProject: flags.trustProject,
    trustedProjects: user?.trustedProjects ?? [],
    userPath,
    projectPath,
    projectFileFound: projectFile !== null,
    // A sensitive key the user sets in the environment or a flag is the user's word, not the
    // project's: it overrides the project's value, which then needs no trust.
    overridden: (key) =>
      fromEnv.config[key as keyof ConfigFile] !== undefined ||
      fromFlags[key as keyof ConfigFile] !== undefined,
  });
  if (!trust.ok) return trust;
  warnings.push(...trust.warnings);
  for (const key of trust.info.ignored) delete project[key as keyof ConfigFile];
  // Reported in run_start: the project's keys that took part (later layers may override them).
  trust.info.applied = Object.keys(project).filter((k) => k !== "$schema");
  const { trustedProjects: _user, ...userLayer } = user ?? {};
  const mcp = configuredMcpServers([
    { value: userLayer.mcpServers, origin: "user", file: userPath ?? "" },
    { value: project.mcpServers, origin: "project", file: projectPath },
  ]);
  if (!mcp.ok) return mcp;
  warnings.push(...mcp.warnings);
  const { permissions: userSets, ...userRest } = userLayer;
  const layers: ConfigFile[] = [userRest, project, fromEnv.config, fromFlags];
  const merged = mergeLayers(layers, {
    configFiles,
    project: trust.info,
    warnings,
    mcpServers: mcp.servers,
    hooks: { user: userLayer.hooks, project: project.hooks },
  });
  if (merged.ok && userSets !== undefined && userPath !== undefined) {
    merged.settings.permissionSets = { file: userPath, value: userSets };
  }
  return merged;
}

/** The settings the flags give (undefined fields were not given). */
function flagLayer(flags: CliFlags): ConfigFile {
  const fromFlags: ConfigFile = {};
  if (flags.model !== undefined) fromFlags.model = flags.model;
  if (flags.baseUrl !== undefined) fromFlags.baseUrl = flags.baseUrl;
  if (flags.apiKeyEnv !== undefined) fromFlags.apiKeyEnv = flags.apiKeyEnv;
  if (flags.maxTurns !== undefined) fromFlags.maxTurns = flags.maxTurns;
  if (flags.contextWindow !== undefined) fromFlags.contextWindow = flags.contextWindow;
  if (flags.maxWallTime !== undefined) fromFlags.maxWallTime = flags.maxWallTime;
  if (flags.maxToolCalls !== undefined) fromFlags.maxToolCalls = flags.maxToolCalls;
  if (flags.maxTokensTotal !== undefined) fromFlags.maxTokensTotal = flags.maxTokensTotal;
  if (flags.maxCost !== undefined) fromFlags.maxCost = flags.maxCost;
  if (flags.noCompaction) fromFlags.compaction = false;
  if (flags.tools !== undefined) fromFlags.tools = flags.tools;
  if (flags.bashTimeout !== undefined) fromFlags.bashTimeout = flags.bashTimeout;
  if (flags.sandbox !== undefined) fromFlags.sandbox = flags.sandbox;
  if (flags.output !== undefined) fromFlags.output = flags.output;
  if (flags.systemPrompt !== undefined) fromFlags.systemPrompt = flags.systemPrompt;
  if (flags.appendSystemPrompt !== undefined) {
    fromFlags.appendSystemPrompt = flags.appendSystemPrompt;
  }
  if (flags.noContextFiles) fromFlags.contextFiles = false;
  if (flags.failOnDeny) fromFlags.failOnDeny = true;
  if (flags.noPrompt) fromFlags.prompt = false;
  return fromFlags;
}

/** Later layers win, field by field; compatibility switches merge key by key. */
function mergeLayers(
  layers: ConfigFile[],
  extra: Pick<Settings, "configFiles" | "project" | "warnings" | "mcpServers" | "hooks">,
): SettingsResult {
  const merged: ConfigFile = Object.assign({}, ...layers);
  if (merged.apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(merged.apiKeyEnv)) {
    return {
      ok: false,
      error: `Invalid API key variable name "${merged.apiKeyEnv}": use a name like OPENAI_API_KEY`,
    };
  }
  if (merged.baseUrl !== undefined && !URL.canParse(merged.baseUrl)) {
    return {
      ok: false,
      error: `Invalid base URL "${merged.baseUrl}": expected e.g. http://localhost:11434/v1`,
    };
  }
  const settings: Settings = {
    model: merged.model ?? DEFAULT_MODEL,
    apiKeyEnv: merged.apiKeyEnv ?? DEFAULT_API_KEY_ENV,
    sandbox: merged.sandbox ?? "auto",
    output: merged.output ?? "text",
    contextFiles: merged.contextFiles ?? true,
    failOnDeny: merged.failOnDeny ?? false,
    noPrompt: merged.prompt === false,
    compaction: merged.compaction ?? true,
    ...extra,
  };
  if (merged.baseUrl !== undefined) settings.baseUrl = merged.baseUrl;
  if (merged.provider !== undefined) settings.provider = merged.provider;
  if (merged.maxTurns !== undefined) settings.maxTurns = merged.maxTurns;
  if (merged.contextWindow !== undefined) settings.contextWindow = merged.contextWindow;
  if (merged.mcpToolSearch !== undefined) settings.mcpToolSearch = merged.mcpToolSearch;
  if (merged.tools !== undefined) settings.tools = merged.tools;
  if (merged.bashTimeout !== undefined) settings.bashTimeout = merged.bashTimeout;
  if (merged.systemPrompt !== undefined) settings.systemPrompt = merged.systemPrompt;
  if (merged.appendSystemPrompt !== undefined) {
    settings.appendSystemPrompt = merged.appendSystemPrompt;
  }
  if (merged.temperature !== undefined) settings.temperature = merged.temperature;
  if (merged.maxOutputTokens !== undefined) settings.maxOutputTokens = merged.maxOutputTokens;
  if (merged.headers !== undefined) settings.headers = merged.headers;
  if (merged.prices !== undefined) settings.prices = merged.prices;
  if (merged.pricing !== undefined) settings.pricing = merged.pricing;
  if (merged.maxWallTime !== undefined) settings.maxWallTime = merged.maxWallTime;
  if (merged.maxToolCalls !== undefined) settings.maxToolCalls = merged.maxToolCalls;
  if (merged.maxTokensTotal !== undefined) settings.maxTokensTotal = merged.maxTokensTotal;
  if (merged.maxCost !== undefined) settings.maxCost = merged.maxCost;
  // Compatibility switches merge field by field, so a project can override one of the user's.
  const compatLayers = layers.map((layer) => layer.compat).filter((c) => c !== undefined);
  if (compatLayers.length > 0) settings.compat = Object.assign({}, ...compatLayers);
  return { ok: true, settings };
}

/** The token prices of `model`: the user config's pricing for it, else `prices`. */
export function pricesFor(settings: Settings, model: string): Prices | undefined {
  return settings.pricing?.[model] ?? settings.prices;
}

/**
 * The servers of each config layer, later layers overriding earlier ones by name. A project's
 * server never gets grants of its own: its `permissions` are dropped with a warning.
 */
export function configuredMcpServers(
  layers: Array<{ value: unknown; origin: ConfiguredMcpServer["origin"]; file: string }>,
):
  | { ok: true; servers: ConfiguredMcpServer[]; warnings: string[] }
  | { ok: false; error: string } {
  const all: ConfiguredMcpServer[] = [];
  const warnings: string[] = [];
  for (const layer of layers) {
    if (layer.value === undefined) continue;
    const parsed = parseMcpServers(layer.value, layer.file);
    if (!parsed.ok) return parsed;
    for (const server of parsed.servers) {
      if (layer.origin === "project" && server.type === "stdio" && server.permissions) {
        delete server.permissions;
        warnings.push(
          `"permissions" of MCP server "${server.name}" in the project config "${layer.file}" ` +
            "is ignored: a project cannot widen what its servers may touch; give them in the " +
            "user config or a file passed with --mcp-config",
        );
      }
      all.push({ server, origin: layer.origin, file: layer.file });
    }
  }
  return { ok: true, servers: latestByName(all), warnings };
}

/** One server per name: the last one given (a later layer wins), in the order they last came. */
export function latestByName(servers: readonly ConfiguredMcpServer[]): ConfiguredMcpServer[] {
  const byName = new Map<string, ConfiguredMcpServer>();
  for (const entry of servers) {
    byName.delete(entry.server.name);
    byName.set(entry.server.name, entry);
  }
  return [...byName.values()];
}
