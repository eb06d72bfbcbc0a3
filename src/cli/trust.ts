/**
 * Project trust: a cloned repository's `.moat/config.json` may shape how moat talks to the model
 * the user chose (safe settings), but the settings that choose where requests and credentials go,
 * or that weaken the sandbox (sensitive settings), apply only when the user trusts the project.
 * Pure decisions and texts; the CLI asks the question and writes the user config.
 */
import { dirname, isAbsolute, join } from "node:path";
import type { CliFs } from "./io.ts";
import { terminalQuote } from "../term/terminal_text.ts";
import type { ProjectTrustInfo, TrustedBy } from "../report/mod.ts";

export type { ProjectTrustInfo, TrustedBy };

/** The file operations trust needs (the CLI's). */
export type TrustFs = Pick<
  CliFs,
  "realPath" | "readTextFile" | "mkdirp" | "writeTextFile"
>;

/** What the user is asked when an untrusted project carries sensitive settings. */
export interface TrustRequest {
  configFile: string;
  root: string;
  settings: SensitiveSetting[];
}

/** Asks the user about an untrusted project (only on a terminal); must resolve. */
export type AskTrust = (request: TrustRequest) => Promise<TrustAnswer>;

/** The project config keys that only a trusted project may set. */
export const SENSITIVE_KEYS = [
  "baseUrl",
  "apiKeyEnv",
  "headers",
  "sandbox",
  "mcpServers",
  "hooks",
  "permissions",
] as const;

/** One sensitive key. */
export type SensitiveKey = typeof SENSITIVE_KEYS[number];

/** A sensitive setting a project file carries, with its value as shown to the user. */
export interface SensitiveSetting {
  key: SensitiveKey;
  /** The value as JSON text (quoted for the terminal when shown). */
  value: string;
}

/** What the user said about an untrusted project's sensitive settings. */
export type TrustAnswer = "remember" | "once" | "ignore";

/**
 * The sensitive settings of a project config, in SENSITIVE_KEYS order. A sandbox mode of
 * "require" only makes moat stricter, so it is safe; any other mode can weaken the user's own.
 */
export function sensitiveSettings(config: Record<string, unknown>): SensitiveSetting[] {
  const out: SensitiveSetting[] = [];
  for (const key of SENSITIVE_KEYS) {
    const value = config[key];
    if (value === undefined) continue;
    if (key === "sandbox" && value === "require") continue;
    out.push({ key, value: JSON.stringify(value) });
  }
  return out;
}

/**
 * Whether the project is trusted, and which sensitive settings to leave out when it is not: asks
 * `askTrust` when given; without it an untrusted project with sensitive settings is an error.
 */
export async function decideProjectTrust(
  project: Record<string, unknown>,
  options: {
    fs: TrustFs;
    env: Record<string, string>;
    workspace: string;
    /** `--trust-project` was given. */
    trustProject: boolean;
    /** The user config's trustedProjects. */
    trustedProjects: readonly string[];
    userPath: string | undefined;
    projectPath: string;
    /** The project config file was there (it was read already). */
    projectFileFound: boolean;
    askTrust?: AskTrust;
    /** True when the user's environment or flags set this key themselves. */
    overridden: (key: string) => boolean;
  },
): Promise<
  { ok: true; info: ProjectTrustInfo; warnings: string[] } | { ok: false; error: string }
> {
  const { fs, workspace, projectPath } = options;
  const info: ProjectTrustInfo = {
    root: workspace,
    configFile: options.projectFileFound ? projectPath : null,
    trusted: false,
    applied: [],
    ignored: [],
  };
  const trusted = (by: TrustedBy) => {
    info.trusted = true;
    info.trustedBy = by;
  };
  if (options.trustProject) trusted("flag");
  else if (await listedAsTrusted(options.trustedProjects, options)) {
    trusted("user_config");
  }
  const sensitive = sensitiveSettings(project).filter((s) => !options.overridden(s.key));
  if (info.trusted || sensitive.length === 0) return { ok: true, info, warnings: [] };

  const request = { configFile: projectPath, root: workspace, settings: sensitive };
  if (options.askTrust === undefined) {
    return {
      ok: false,
      error: untrustedProjectMessage({ ...request, userConfig: options.userPath }, sensitive),
    };
  }
  const answer = await options.askTrust(request);
  switch (answer) {
    case "ignore":
      info.ignored = sensitive.map((s) => s.key);
      return {
        ok: true,
        info,
        warnings: [ignoredSettingsWarning(projectPath, info.ignored)],
      };
    case "once":
      trusted("prompt");
      return { ok: true, info, warnings: [] };
    case "remember": {
      trusted("prompt");
      const saved = await rememberTrust(fs, options.userPath, workspace);
      return { ok: true, info, warnings: saved === undefined ? [] : [saved] };
    }
    default: {
      const never: never = answer;
      throw new Error(`unknown trust answer ${JSON.stringify(never)}`);
    }
  }
}

/** True when the workspace's real path is one of the user's trusted projects. */
async function listedAsTrusted(
  entries: readonly string[],
  options: { fs: TrustFs; env: Record<string, string>; workspace: string },
): Promise<boolean> {
  for (const entry of entries) {
    const path = expandTrustedEntry(entry, options.env.HOME);
    if (path === undefined) continue;
    if (path === options.workspace || await options.fs.realPath(path) === options.workspace) {
      return true;
    }
  }
  return false;
}

/** Adds the project to the user config's trustedProjects; a warning when that failed. */
async function rememberTrust(
  fs: TrustFs,
  userPath: string | undefined,
  root: string,
): Promise<string | undefined> {
  if (userPath === undefined) {
    return "Trusted this project for this run only: neither XDG_CONFIG_HOME nor HOME is set, " +
      "so there is no user config to remember it in";
  }
  try {
    const current = await fs.readTextFile(userPath);
    await fs.mkdirp(dirname(userPath));
    await fs.writeTextFile(userPath, withTrustedProject(current, root));
    return undefined;
  } catch (e) {
    return `Trusted this project for this run only: could not update "${userPath}": ${
      e instanceof Error ? e.message : String(e)
    }; add "${root}" to trustedProjects there yourself`;
  }
}

/** `~` and `~/…` in a trustedProjects entry, expanded with HOME. */
export function expandTrustedEntry(entry: string, home: string | undefined): string | undefined {
  if (entry === "~" || entry.startsWith("~/")) {
    return home === undefined || home === "" ? undefined : join(home, entry.slice(1));
  }
  return isAbsolute(entry) ? entry : undefined;
}

/** Why a project is refused without a terminal to ask on (exit 2, before any request). */
export function untrustedProjectMessage(
  project: { configFile: string; root: string; userConfig: string | undefined },
  settings: SensitiveSetting[],
): string {
  const where = project.userConfig === undefined
    ? "to trustedProjects in the user config ($XDG_CONFIG_HOME/moat/config.json)"
    : `to trustedProjects in ${terminalQuote(project.userConfig)}`;
  return `The project config ${terminalQuote(project.configFile)} sets ${
    describeKinds(settings)
  }, and this project is not trusted:\n${listSettings(settings)}` +
    `Nothing was sent and no tool ran. To apply these settings, trust the project: pass ` +
    `--trust-project for one run, or add ${terminalQuote(project.root)} ${where}. To run ` +
    (settings.some((s) => s.key === "permissions")
      ? "without it, leave out -P, give permission flags or use a set of your user config."
      : `without them, give your own values (--base-url, --api-key-env, --sandbox) or remove ` +
        `them from the project config.`);
}

/** The one question asked on a terminal before anything else happens. */
export function trustQuestion(
  project: { configFile: string; root: string },
  settings: SensitiveSetting[],
): string {
  return `moat: The project config ${terminalQuote(project.configFile)} sets ${
    describeKinds(settings)
  }:\n${listSettings(settings)}` +
    `Trust this project only if you trust its repository. Apply these settings? ` +
    `[r]emember (trust ${terminalQuote(project.root)} from now on) / [o]nce (this run) / ` +
    `[i]gnore them:`;
}

/** Parses an answer to the trust question; undefined when it is none of them (empty = ignore). */
export function parseTrustAnswer(text: string): TrustAnswer | undefined {
  const answer = text.trim().toLowerCase();
  if (answer === "r" || answer === "remember" || answer === "a" || answer === "always") {
    return "remember";
  }
  if (answer === "o" || answer === "once" || answer === "y" || answer === "yes") return "once";
  if (answer === "i" || answer === "ignore" || answer === "n" || answer === "no" || answer === "") {
    return "ignore";
  }
  return undefined;
}

/** The warning of a run that goes on without the project's sensitive settings. */
export function ignoredSettingsWarning(configFile: string, keys: readonly string[]): string {
  return `Ignoring ${keys.map((k) => `"${k}"`).join(", ")} from the untrusted project config ${
    terminalQuote(configFile)
  }; to apply ${
    keys.length === 1 ? "it" : "them"
  }, pass --trust-project or add the workspace to trustedProjects in the user config`;
}

/**
 * The user config text with `root` added to `trustedProjects` (other fields kept). `text` is the
 * current file (null when there is none); it was validated before, so it is a JSON object.
 */
export function withTrustedProject(text: string | null, root: string): string {
  const config = text === null || text.trim() === ""
    ? {}
    : JSON.parse(text) as Record<string, unknown>;
  const list = Array.isArray(config.trustedProjects) ? config.trustedProjects as string[] : [];
  if (!list.includes(root)) config.trustedProjects = [...list, root];
  return JSON.stringify(config, null, 2) + "\n";
}

function describeKinds(settings: SensitiveSetting[]): string {
  const routes = settings.some((s) => s.key !== "sandbox" && s.key !== "permissions");
  const sandbox = settings.some((s) => s.key === "sandbox");
  const grants = settings.some((s) => s.key === "permissions");
  const parts = [
    ...(routes ? ["where moat sends requests and your API key"] : []),
    ...(sandbox ? ["how moat sandboxes its tools"] : []),
    ...(grants ? ["what moat's tools may touch (a permission set)"] : []),
  ];
  return parts.join(" and ");
}

function listSettings(settings: SensitiveSetting[]): string {
  return settings.map((s) => `  ${s.key}: ${terminalQuote(s.value, { raw: true })}\n`).join("");
}
