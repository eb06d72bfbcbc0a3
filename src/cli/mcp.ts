/**
 * The MCP servers of a run: which start (a project's only when trusted, an HTTP one of a project
 * only when --allow-net names its host, a stdio one only under bubblewrap unless
 * --allow-unsandboxed-mcp), confined like the tools, and whether each call may run.
 */
import { resolve } from "node:path";
import type { AnyTool, OnToolCall, PolicyDecision } from "../agent/mod.ts";
import type {
  McpClients,
  McpProcessOps,
  McpPromptCommand,
  McpServerConfig,
  McpServerStatus,
  McpStdioCommand,
  McpStdioServer,
} from "../mcp/mod.ts";
import { parseMcpJson } from "../mcp/config.ts";
import { READ_RESOURCE_TOOL } from "../mcp/names.ts";
import { knownContextWindow } from "../model/context_window.ts";
import type { ModelClient } from "../model/types.ts";
import type { PermissionHook, Prompter } from "../policy/approve.ts";
import { netDenied, urlHostPort } from "../policy/net_deny.ts";
import type { PermissionDecision } from "../policy/check.ts";
import { type ConfiguredMcpServer, latestByName } from "./config.ts";
import { readTextOrReason } from "./io.ts";
import { planStdio } from "./mcp_start.ts";
import type { RunSetup, SandboxHandle } from "./setup.ts";
import { terminalQuote } from "../term/terminal_text.ts";

/** The MCP side of a run. */
export interface McpRun {
  /**
   * Starts the servers (once; later calls do nothing): on the first model request, which does
   * not wait for them, or at once where nothing waits (interactive mode, `moat mcp list`).
   */
  begin(): void;
  tools(): AnyTool[];
  /** The server whose grant a call needs (by the moat name and arguments), or undefined. */
  serverOf(toolName: string, args?: unknown): string | undefined;
  /** The servers' prompts as slash commands (interactive mode). */
  promptCommands?(): McpPromptCommand[];
  /** Each server's state; a stdio one's `view` says what it can read, write and reach. */
  status(): Array<McpServerStatus & { view?: string }>;
  /** Begins, then resolves once every server is ready or failed; never rejects. */
  whenStarted(): Promise<void>;
  close(): Promise<void>;
}

/** The servers of the config files plus those of --mcp-config (which win by name). */
export async function mcpServersOf(
  setup: Pick<RunSetup, "flags" | "settings" | "fs" | "startCwd">,
): Promise<{ ok: true; servers: ConfiguredMcpServer[] } | { ok: false; error: string }> {
  const given: ConfiguredMcpServer[] = [];
  for (const name of setup.flags.mcpConfig) {
    const file = resolve(setup.startCwd, name);
    const read = await readTextOrReason(setup.fs, file);
    if ("reason" in read) {
      return { ok: false, error: `Cannot read the MCP config "${name}": ${read.reason}` };
    }
    if (read.text === null) return { ok: false, error: `The MCP config "${name}" does not exist` };
    const parsed = parseMcpJson(read.text, name);
    if (!parsed.ok) return parsed;
    given.push(...parsed.servers.map((server) => ({ server, origin: "flag" as const, file })));
  }
  // --mcp-config wins over the config files by name.
  return { ok: true, servers: latestByName([...setup.settings.mcpServers, ...given]) };
}

/** The host of an HTTP server's URL, as --allow-net names it. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** True when `--deny-net` covers the host of `url`. */
function deniedUrl(url: string, denyNet: readonly string[]): boolean {
  try {
    const { hostname, port } = urlHostPort(new URL(url));
    return netDenied(denyNet, hostname, port);
  } catch {
    return false;
  }
}

/**
 * Starts the servers that may start, without waiting for them (`whenStarted`); undefined when
 * there are none (or --no-mcp). A server that may not start, or fails, is a warning, never an
 * error: one failing in the background warns when it does.
 */
export async function startMcp(
  setup: RunSetup,
  sandbox: SandboxHandle,
  options: McpStartOptions,
): Promise<{ ok: true; mcp?: McpRun } | { ok: false; error: string }> {
  if (setup.flags.noMcp) return { ok: true };
  const found = await mcpServersOf(setup);
  if (!found.ok) return found;
  if (found.servers.length === 0) return { ok: true };
  // Planned now (their warnings and views are the run's start); spawned by `begin()`.
  const planned = planMcp(setup, sandbox, found.servers, options);
  return planned === undefined ? { ok: true } : { ok: true, mcp: deferredMcp(planned) };
}

/** Planned servers: their state before the spawn, and what spawns them. */
interface PlannedMcp {
  starting: Array<McpServerStatus & { view?: string }>;
  launch(): Promise<McpRun>;
}

/**
 * The planned servers, spawned by `begin()` (in a later macrotask, so a caller's own work comes
 * first: the MCP SDK's evaluation and the spawns take the main thread). Before then every server
 * is "starting", with no tools.
 */
function deferredMcp(planned: PlannedMcp): McpRun {
  let run: McpRun | undefined;
  let launched: Promise<McpRun | undefined> | undefined;
  let closed = false;
  const begin = () =>
    launched ??= new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => closed ? undefined : planned.launch())
      .then((r) => run = r);
  return {
    begin: () => void begin(),
    tools: () => run?.tools() ?? [],
    serverOf: (toolName, args) => run?.serverOf(toolName, args),
    promptCommands: () => run?.promptCommands?.() ?? [],
    status: () => run?.status() ?? planned.starting,
    whenStarted: async () => {
      await (await begin())?.whenStarted();
    },
    async close() {
      closed = true;
      await (await launched)?.close();
    },
  };
}

/**
 * `model`, beginning `mcp` once a request is answered (its first event, or its end): the request
 * is on the wire by then, so planning the servers, evaluating the MCP SDK and spawning them (all
 * on the main thread) cannot hold it back.
 */
export function withMcpBegin(model: ModelClient, mcp: McpRun | undefined): ModelClient {
  if (mcp === undefined) return model;
  const client: ModelClient = {
    stream(request, options) {
      const onEvent = options.onEvent;
      const reply = model.stream(request, {
        ...options,
        onEvent: (event) => {
          mcp.begin();
          onEvent?.(event);
        },
      });
      void reply.finally(() => mcp.begin()).catch(() => {});
      return reply;
    },
  };
  if (model.contextWindow !== undefined) {
    client.contextWindow = (options) =>
      model.contextWindow?.(options) ?? Promise.resolve(undefined);
  }
  return client;
}

/** What starting the servers reports to. */
interface McpStartOptions {
  warn: (message: string) => void;
  secretEnvNames: readonly string[];
}

/** Plans and confines the servers that may start (warning about the others); undefined: none. */
function planMcp(
  setup: RunSetup,
  sandbox: SandboxHandle,
  servers: readonly ConfiguredMcpServer[],
  options: McpStartOptions,
): PlannedMcp | undefined {
  const commands = new Map<string, McpStdioCommand>();
  const refusals = new WeakMap<McpStdioCommand, string>();
  const explain = new Map<string, (error: string) => string | undefined>();
  const summaries = new Map<string, string>();
  const startable: McpServerConfig[] = [];
  const net = sandbox.grants.net;
  for (const { server, origin, file } of servers) {
    const name = terminalQuote(server.name);
    if (server.type === "http") {
      const host = hostOf(server.url);
      if (deniedUrl(server.url, sandbox.grants.denyNet)) {
        options.warn(
          `MCP server ${name} (${terminalQuote(server.url)}) was not contacted: its host is in ` +
            `--deny-net (drop it from --deny-net to use the server)`,
        );
        continue;
      }
      // The user's own config (or --mcp-config) names the host; a project's needs the grant.
      if (origin === "project" && net !== true && !net.includes(host)) {
        options.warn(
          `MCP server ${name} (${terminalQuote(server.url)}) from the project config was not ` +
            `contacted: its host is not in --allow-net (add --allow-net=${host} to use it)`,
        );
        continue;
      }
      startable.push(server);
      continue;
    }
    const plan = planStdio(setup, sandbox, { server, origin, file }, {
      secretEnvNames: options.secretEnvNames,
      name,
    });
    if (!plan.ok) {
      options.warn(plan.warning);
      continue;
    }
    const { env, cwd } = plan;
    let command: McpStdioCommand;
    if (plan.confined !== undefined) {
      // A scoped --allow-net (and --deny-net) holds for it through a proxy of its own.
      const [bwrap, ...args] = plan.confined;
      // bubblewrap sets the server's environment itself (--clearenv, --setenv).
      command = {
        command: bwrap as string,
        args,
        env: { PATH: env["PATH"] ?? "" },
        program: server.command,
      };
    } else if (setup.flags.allowUnsandboxedMcp) {
      command = { command: server.command, args: server.args, env, cwd };
    } else {
      options.warn(
        `MCP server ${name} was not started: without the OS sandbox (bubblewrap) it would run ` +
          "with your full privileges (any file, the network). Install bubblewrap, or give " +
          "--allow-unsandboxed-mcp to start it anyway",
      );
      continue;
    }
    commands.set(server.name, command);
    if (plan.refused !== undefined) refusals.set(command, plan.refused);
    explain.set(server.name, plan.explain);
    summaries.set(server.name, plan.summary);
    startable.push(server);
  }
  if (startable.length === 0) return undefined;
  const spawner: McpProcessOps | undefined = setup.deps.createMcpProcessOps?.();
  if (spawner === undefined) {
    options.warn("MCP servers cannot be started here: this build has no process support for them");
    return undefined;
  }
  // A server whose program or script is missing fails at its spawn: listed, with the reason.
  const processOps: McpProcessOps = {
    spawn: (command) => {
      const refused = refusals.get(command);
      return refused === undefined ? spawner.spawn(command) : { ok: false, message: refused };
    },
  };
  const starting = startable.map((server) => {
    const view = summaries.get(server.name);
    const status: McpServerStatus = {
      name: server.name,
      transport: server.type,
      state: "starting",
      tools: [],
    };
    return view === undefined ? status : { ...status, view };
  });
  return {
    starting,
    launch: () =>
      launchMcp(setup, startable, options, { processOps, commands, explain, summaries }),
  };
}

/** Spawns the planned servers; each one's tools are offered once it is ready. */
async function launchMcp(
  setup: RunSetup,
  startable: McpServerConfig[],
  options: McpStartOptions,
  plan: {
    processOps: McpProcessOps;
    commands: Map<string, McpStdioCommand>;
    explain: Map<string, (error: string) => string | undefined>;
    summaries: Map<string, string>;
  },
): Promise<McpRun> {
  const { processOps, commands, explain, summaries } = plan;
  const { createMcpClients, toolSearchOptions } = await import("../mcp/mod.ts");
  const clients: McpClients = createMcpClients(startable, {
    processOps,
    stdioCommand: (server: McpStdioServer) => commands.get(server.name) as McpStdioCommand,
    onWarning: options.warn,
    toolSearch: toolSearchOptions(
      setup.settings.mcpToolSearch,
      setup.settings.contextWindow ?? knownContextWindow(setup.settings.model),
    ),
    clock: setup.clock,
    explainFailure: (server, error) => explain.get(server.name)?.(error),
  });
  const started = clients.start();
  return {
    begin: () => {},
    tools: () => clients.tools(),
    serverOf: (toolName, args) => clients.serverOf(toolName, args),
    promptCommands: () => clients.promptCommands(),
    status: () =>
      clients.status().map((s) => {
        const view = summaries.get(s.name);
        return view === undefined ? s : { ...s, view };
      }),
    whenStarted: () => started,
    close: () => clients.close(),
  };
}

/**
 * The policy of MCP calls: allowed by --allow-mcp (or -A) naming the server or the tool, else
 * asked on a terminal ("always" holds for the run), else denied naming the flag.
 */
export function mcpPolicy(
  mcp: McpRun,
  options: {
    allow: true | string[] | undefined;
    prompter?: Prompter;
    /** The PermissionRequest hooks, asked before the user (and when nobody can be asked). */
    permissionHook?: PermissionHook;
    onDecision?: (decision: PermissionDecision) => void;
  },
): OnToolCall {
  const allowed = new Set(options.allow === true ? [] : options.allow ?? []);
  return async (call): Promise<PolicyDecision | undefined> => {
    const server = mcp.serverOf(call.name, call.args) as string;
    // "Always" for a resource read holds for that server's resources, not every server's.
    const key = call.name === READ_RESOURCE_TOOL ? `${call.name} ${server}` : call.name;
    const decide = (
      outcome: PermissionDecision["outcome"],
      by: PermissionDecision["by"],
      reason?: string,
    ) =>
      options.onDecision?.({
        toolCallId: call.toolCallId,
        toolName: call.name,
        access: "mcp",
        target: call.name,
        outcome,
        by,
        ...(reason === undefined ? {} : { reason }),
      });
    if (
      options.allow === true || allowed.has(server) || allowed.has(call.name) || allowed.has(key)
    ) {
      decide("granted", "grants");
      return undefined;
    }
    const reason = `calling the MCP tool "${call.name}" (server "${server}") is not granted ` +
      `(add --allow-mcp=${call.name}, or --allow-mcp=${server} for every tool of the server)`;
    const question = `moat wants to call the MCP tool ${terminalQuote(call.name)} of server ` +
      `${terminalQuote(server)}. Allow? [y]es once / [a]lways this run / [N]o (Enter)`;
    const hooked = await options.permissionHook?.({
      toolName: call.name,
      question,
      toolCallId: call.toolCallId,
      args: call.args,
    });
    if (hooked?.decision === "deny") {
      decide("denied", "hook", hooked.reason);
      return { block: true, reason: hooked.reason, source: "permissions" };
    }
    if (hooked?.decision === "always") {
      allowed.add(key);
      decide("approved_always", "hook");
      return undefined;
    }
    if (options.prompter === undefined) {
      decide("denied", "no_prompt", reason);
      return { block: true, reason, source: "permissions" };
    }
    const answer = await options.prompter.ask({ toolName: call.name, question });
    if (answer === "always") allowed.add(key);
    if (answer === "once" || answer === "always") {
      decide(answer === "once" ? "approved_once" : "approved_always", "user");
      return undefined;
    }
    const declined =
      `calling the MCP tool "${call.name}" was declined by the user; do not retry it`;
    decide("denied", "user", declined);
    return { block: true, reason: declined, source: "user" };
  };
}
