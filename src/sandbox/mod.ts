/**
 * `createSandbox`: the one entry point the CLI uses to get the tools and the permission policy of
 * a run. Tools execute in a tool host — a bwrap'd moat subprocess whose filesystem view is built
 * from the grants (./bwrap/), running them in a Worker (./worker/) with the grants as Deno
 * permissions — or, without bubblewrap, in that same Worker inside this process. The request
 * path: a tool proxy (here) → the run's hosts (./hosts.ts) → a host client (./host/client.ts) →
 * the host process (./host/server.ts) → the Worker.
 */
import {
  computeProtection,
  createPermissionPolicy,
  findProtection,
  grantFlagHint,
  type Grants,
  type PermissionDecision,
  type PermissionPolicyOptions,
  type PolicyHook,
  type Prompter,
  protectedDetail,
  type Protection,
  resolveHome,
  toolEnvironment,
  UsageError,
} from "../policy/mod.ts";
import {
  type AnyTool,
  asNewFileWrite,
  type BuiltinToolOptions,
  createBuiltinTools,
  selectTools,
  type ToolOutput,
} from "../tools/mod.ts";
import { createApprovals } from "./approvals.ts";
import { createPreviewRead } from "./preview_read.ts";
import { createBashNetwork } from "./_bash_net.ts";
import { runFetchTool } from "./_fetch_tool.ts";
import { createMcpNetwork } from "./_mcp_net.ts";
import { trackPrograms } from "./_bash_programs.ts";
import { createProgramPrecheck } from "./_bash_precheck.ts";
import {
  binDirs,
  type BwrapProbe,
  findProgramCopies,
  probeBwrap,
  scanDenied,
} from "./bwrap/mod.ts";
import { ToolHostClient } from "./host/client.ts";
import { startWorkerHost } from "./host/connection.ts";
import { type ConfineSpec, createHostStarter, type HostSetup } from "./host_start.ts";
import { serverConfiner } from "./_server_access.ts";
import { ToolHosts } from "./hosts.ts";
import { hostLaunch } from "./launch.ts";
import { moatCode } from "./moat_code.ts";
import { createMountPoints } from "./mount_points.ts";
import type { SandboxSys } from "./ops.ts";
import {
  denoPermissionEngine,
  denyPermissions,
  hasDenyLists,
  widenForApproval,
} from "./permissions.ts";
import { workerModuleUrl } from "./worker/worker_modules.ts";
import type { SandboxMode } from "./mode.ts";
import { unsandboxedProblem } from "./_unsandboxed.ts";

export { TOOL_HOST_COMMAND } from "./host/protocol.ts";
export { HOST_RUNTIME_FLAGS, type HostLaunch, hostLaunch } from "./launch.ts";
export type { SandboxSys } from "./ops.ts";
export type { ConfineSpec } from "./host_start.ts";
export { workerPermissions } from "./permissions.ts";
export type { SandboxMode } from "./mode.ts";

const NO_OS_SANDBOX_EFFECT = "Only Deno's permissions confine them: bash needs --allow-run " +
  "and is not OS-sandboxed";

/** `--sandbox=require` and bubblewrap cannot be used; the CLI prints it and exits 2. */
export class SandboxUnavailableError extends UsageError {
  /** Why bubblewrap cannot be used. */
  readonly reason: string;
  constructor(reason: string) {
    super(
      `The OS sandbox is required (--sandbox=require) but cannot be used: ${reason}; fix ` +
        "that, or pass --sandbox=auto to run with Deno's permissions only",
    );
    this.name = "SandboxUnavailableError";
    this.reason = reason;
  }
}

/** Options of `createSandbox`. */
export interface SandboxOptions extends Pick<PermissionPolicyOptions, "permissionHook"> {
  /** The workspace (real path). */
  cwd: string;
  grants: Grants;
  /** Per-run bash spill directory (created by the caller); tools may always read and write it. */
  spillDir: string;
  /** moat's own environment: the source of the tools' allow-listed environment. */
  env: Record<string, string>;
  /** Variables that never reach a tool, even with --allow-env or -A (API key, model config). */
  secretEnvNames: string[];
  sandbox?: SandboxMode; // default "auto"
  /** Names of the tools to offer (`--tools`); default all built-in tools. */
  tools?: string[];
  bashTimeoutSec?: number;
  bashMaxTimeoutSec?: number;
  /** Asks the user about ungranted calls (TTY only); absent → deny. */
  prompter?: Prompter;
  /** `--no-prompt`: deny instead of asking. */
  noPrompt?: boolean;
  /** Receives every permission decision. */
  onDecision?: (decision: PermissionDecision) => void;
  /** Test seam: replaces the bubblewrap probe. */
  probe?: () => Promise<BwrapProbe>;
  /** Test seam: the tool factory (default createBuiltinTools) used for schemas and locations. */
  createTools?: (options: BuiltinToolOptions) => AnyTool[];
  /** Test seam: the Worker module that runs the tools (default ./worker/worker.ts). */
  workerUrl?: string;
  /** Dispatches `__tool-host` to ./host/main.ts under `deno run` (default: the main module). */
  hostScript?: string;
  /** The effects (the entry points pass Deno's: src/sys/sandbox.ts). */
  sys: SandboxSys;
}

/** The tools and policy of one run. */
export interface Sandbox {
  /** Proxies that run in the tool host (same names, schemas and locations as the built-ins). */
  tools: AnyTool[];
  /** The permission policy for the agent core. */
  onToolCall: PolicyHook;
  /** Where tools run: inside bubblewrap, or only in a permission-restricted Worker. */
  mode: "bwrap" | "worker";
  /** One-line notices for the user (e.g. running without the OS sandbox). */
  warnings: string[];
  /** The effective grants (widened by "always" approvals). */
  readonly grants: Grants;
  /** Paths kept read-only inside the write grants, computed once at creation; never widened. */
  readonly protection: Protection;
  /**
   * The command line that runs a program (an MCP server) confined like the tools: the tools' view
   * (plus the program itself and the spec's `readOnly`, and its `readWrite` with their protected
   * paths read-only) and environment plus `env`, its own pid namespace, and the scoped
   * --allow-net hosts plus `net` through a proxy of its own (./host_start.ts confinedCommand).
   * Undefined without bubblewrap; an error when the view cannot be built safely.
   */
  confine(spec: ConfineSpec): { argv: string[] } | { error: string } | undefined;
  /** The tools' environment (the allow-list; never the provider key). */
  toolEnv(): Record<string, string>;
  stopJobs(): Promise<ToolOutput[]>; // Stops the background jobs (details.stopped: was running).
  listJobs(): Promise<string>; // The background jobs and their states (/jobs).
  close(): Promise<void>; // Kills the tool hosts and every process group in them. Idempotent.
}

/** Creates the tool host (started right away) and the policy for a run. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const warnings: string[] = [];
  const { sys } = options;
  const osSandbox = openOsSandbox(options, warnings); // The scans run while its probe does.
  const queryWorkerUrl = workerModuleUrl("query", sys.runtime.moduleRoot?.());
  // Once, from the start's grants and real paths: approvals never lift it, every host of the run
  // enforces it; a directory approved later adds its repository's or moat's code (./moat_code.ts).
  const code = moatCode(sys.runtime, options.env);
  const scanning = { workspace: options.cwd, env: options.env, code };
  const scan = computeProtection(options.grants, { ...scanning, ops: sys.paths });
  // Also once: each denied path's kind and identity, which every later tool host must find again.
  const denied = scanDenied(options.grants, sys.paths);
  const bwrap = await osSandbox;
  const { env, toolOptions } = toolSetup(options, bwrap !== undefined);
  warnings.push(...scan.warnings);
  // --deny-run masks every name of the program in the view: hardlinks and identical copies.
  const copies = bwrap && options.grants.denyRun.length > 0
    ? await findProgramCopies(options.grants.denyRun, {
      binDirs: binDirs(env["PATH"], { paths: sys.paths }),
      paths: sys.paths,
      commands: sys.commands,
    })
    : { ok: true as const, paths: [] };
  // A search that could not finish would leave a name of the program runnable: no run.
  if (!copies.ok) throw new UsageError(copies.message);
  const deniedPrograms = copies.paths;

  // Under a scoped --allow-net, bash and MCP servers reach the network only through moat's proxy.
  const netOptions = {
    cwd: options.cwd,
    spillDir: options.spillDir,
    grants: (): Grants => hosts.grants,
    ...(options.onDecision === undefined ? {} : { onDecision: options.onDecision }),
    net: sys.net,
    queryWorkerUrl,
    // --deny-net as Deno matches it: the deny Worker holds the list as its net grants.
    denied: async (target: string) => {
      if (denyClient === undefined) return false;
      const answer = await denyClient.query([{ name: "net", host: target }]);
      return !answer.ok || answer.states[0] === "granted";
    },
  };
  const bashNet = bwrap
    ? createBashNetwork({ ...netOptions, warn: (message) => warnings.push(message) })
    : undefined;
  const mcpNet = bwrap ? createMcpNetwork(netOptions) : undefined;

  const hostSetup: HostSetup = {
    workerUrl: options.workerUrl ?? workerModuleUrl("tools", sys.runtime.moduleRoot?.()),
    toolOptions,
    ...(bwrap ? { bwrap } : {}),
    denied,
    deniedPrograms,
    ...(bashNet ? { netProxy: (grants: Grants) => bashNet.hostConfig(grants) } : {}),
    ...(mcpNet ? { mcpNet } : {}),
    sys,
  };
  const hosts: ToolHosts = new ToolHosts(
    { grants: options.grants, protection: scan.protection },
    createHostStarter(hostSetup),
    // In bubblewrap, the host's pid namespace ends the jobs of a killed moat.
    bwrap === undefined && sys.groupReaper ? { startReaper: sys.groupReaper } : {},
  );
  hosts.warmUp();

  // Deno's Worker permissions have no deny lists: a second Worker holds them as its grants.
  const denyClient = hasDenyLists(options.grants)
    ? new ToolHostClient(() =>
      startWorkerHost({
        workerUrl: queryWorkerUrl,
        permissions: denyPermissions(options.grants),
        toolOptions: { cwd: options.cwd, spillDir: options.spillDir },
      })
    )
    : undefined;
  const approvals = createApprovals({
    hosts,
    bwrap: bwrap !== undefined,
    cwd: options.cwd,
    env: options.env,
    code,
    sys,
  });
  // Who is asked about an access (the policy's, bash's programs): the hooks, then the user.
  const asking = {
    ...(options.prompter === undefined ? {} : { prompter: options.prompter }),
    ...(options.noPrompt === undefined ? {} : { noPrompt: options.noPrompt }),
    ...(options.permissionHook === undefined ? {} : { permissionHook: options.permissionHook }),
    ...(options.onDecision === undefined ? {} : { onDecision: options.onDecision }),
  };
  const engine = denoPermissionEngine(() => hosts.active(), denyClient);
  const policy = createPermissionPolicy({
    engine,
    previewRead: createPreviewRead(engine, sys.tools.fs),
    ...asking,
    grantFlag: (location) => grantFlagHint(hosts.grants, location, { cwd: options.cwd }),
    protectedWrite(path) {
      const hit = findProtection(hosts.protection, path);
      return hit === undefined ? undefined : protectedDetail(hosts.protection, hit);
    },
    onApproved: approvals.onApproved,
  });

  // The tools the model sees: the built-ins run in the hosts, fetch here (see _fetch_tool.ts).
  const createTools = options.createTools ?? createBuiltinTools;
  // In bubblewrap an ungranted /tmp is the host's tmpfs: the model reads that in bash's description.
  const tmpGranted = [options.grants.read, options.grants.write].some((scope) =>
    scope === true || scope.some((p) => p === "/" || p === "/tmp")
  );
  const local = createTools({
    ...toolOptions,
    ...sys.tools,
    bashCommandPrefix: [],
    ...(bwrap && !tmpGranted ? { bashPrivateTmp: "/tmp" } : {}),
    bashPlaceholders: bwrap !== undefined &&
      scan.protection.paths.some((p) => p.kind === "missing_dir"),
  });
  const fetch = sys.fetch && runFetchTool({ ...netOptions, ...sys.fetch, engine });
  const all = fetch === undefined ? local : [...local, fetch];
  const selected = options.tools === undefined ? all : selectTools(all, options.tools);
  const tools = selected.filter((tool) => tool !== fetch).map((tool): AnyTool => ({
    ...tool,
    async execute(args, signal, ctx) {
      const created = approvals.takeCreatedFile(ctx.toolCallId);
      const output = await hosts.execute(tool.name, args, {
        toolCallId: ctx.toolCallId,
        signal,
        onUpdate: ctx.onUpdate,
      });
      // The sandbox created the file this write found: it is new all the same.
      return created !== undefined && tool.name === "write"
        ? asNewFileWrite(output, created)
        : output;
    },
  })).concat(selected.filter((tool) => tool === fetch));

  // Under a scoped --allow-run the view masks the programs not granted: name them after a call.
  let programDirs: string[] | undefined;
  const tracked = bwrap === undefined ? tools : trackPrograms(tools, {
    cwd: options.cwd,
    grants: () => hosts.grants,
    // The masked directories are fixed for the run: looked up once, on the first bash call.
    binDirs: () => programDirs ??= binDirs(env["PATH"], { paths: sys.paths }),
    paths: sys.paths,
    ...asking,
    allowAlways: (location) => hosts.widen(widenForApproval(hosts.grants, location)),
    allowOnce: (location) => hosts.allowForNextBash(location),
  });
  // Before a bash call runs: the programs its command line names that the view masks.
  const programCheck = bwrap === undefined ? undefined : createProgramPrecheck({
    grants: () => hosts.grants,
    binDirs: () => programDirs ??= binDirs(env["PATH"], { paths: sys.paths }),
    paths: sys.paths,
    cwd: options.cwd,
    readText: (path, maxBytes) => sys.paths.readTextFile(path, maxBytes),
    ...asking,
    allowAlways: (location) => hosts.widen(widenForApproval(hosts.grants, location)),
    allowForCall: (toolCallId, location) => hosts.allowOnce(toolCallId, location),
    parser: () => import("./_bash_commands.ts").then((m) => m.loadBashCommandParser()),
  });

  let closing: Promise<void> | undefined;
  return {
    tools: bashNet === undefined ? tracked : bashNet.track(tracked),
    onToolCall: async (call) => {
      const verdict = await policy(call) ?? await programCheck?.(call);
      if (verdict === undefined && bwrap) await approvals.createGrantedFiles(call);
      return verdict;
    },
    mode: bwrap ? "bwrap" : "worker",
    warnings,
    confine: serverConfiner(hostSetup, () => hosts, scanning),
    toolEnv: () => ({ ...toolOptions.env }),
    stopJobs: () => hosts.stopJobs(),
    listJobs: () => hosts.listJobs(),
    get grants() {
      return hosts.grants;
    },
    get protection() {
      return hosts.protection;
    },
    close() {
      closing ??= (async () => {
        await Promise.all([hosts.close(), denyClient?.close(), bashNet?.close(), mcpNet?.close()]);
        // Once no view mounts over them any more.
        await bwrap?.mountPoints.close();
      })();
      return closing;
    },
  };
}

/** bubblewrap for the run (undefined: --sandbox=off or unusable, with a warning that says so). */
async function openOsSandbox(options: SandboxOptions, warnings: string[]) {
  const requested = options.sandbox ?? "auto";
  const { sys } = options;
  // Only the OS sandbox re-executes moat; --sandbox=off needs no launch (nor `deno info`).
  const launchPromise = requested === "off"
    ? undefined
    : hostLaunch(sys, { script: options.hostScript, env: options.env, bundle: !options.workerUrl });
  let probe: BwrapProbe | undefined;
  if (requested !== "off") {
    const defaultProbe = () =>
      probeBwrap({ env: options.env, paths: sys.paths, commands: sys.commands });
    probe = await (options.probe ?? defaultProbe)();
    if (!probe.usable) {
      if (requested === "require") {
        await launchPromise?.catch(() => {});
        throw new SandboxUnavailableError(probe.cause);
      }
      warnings.push(
        `Tools run without the OS sandbox: ${probe.cause}. ${NO_OS_SANDBOX_EFFECT}`,
      );
    }
  } else {
    warnings.push(`Tools run without the OS sandbox (--sandbox=off). ${NO_OS_SANDBOX_EFFECT}`);
  }
  // Found in parallel with the probe; awaited either way so no lookup outlives this call.
  const launch = await launchPromise;
  if (!(probe?.usable && launch !== undefined)) {
    const problem = unsandboxedProblem(options.grants);
    if (problem !== undefined) throw new UsageError(problem);
    return undefined;
  }
  // Placeholders for the view's mount points at missing paths, removed after the run.
  return { path: probe.path, launch, mountPoints: createMountPoints(sys.mountPoints, sys.paths) };
}

/** The tools' environment and the options every tool is built with. */
function toolSetup(options: SandboxOptions, inBwrap: boolean) {
  const env = toolEnvironment(options.grants, options.env, options.secretEnvNames);
  if (inBwrap) env["TMPDIR"] = "/tmp";
  // `~` as the grants expanded it (a symlinked HOME is not in bubblewrap's view): paths and HOME.
  const home = resolveHome(options.env["HOME"], options.sys.paths);
  if (home.ok && env["HOME"] !== undefined) env["HOME"] = home.path;
  const toolOptions = {
    cwd: options.cwd,
    spillDir: options.spillDir,
    env,
    ...(home.ok ? { home: home.path } : {}),
    ...(options.bashTimeoutSec === undefined ? {} : { bashTimeoutSec: options.bashTimeoutSec }),
    ...(options.bashMaxTimeoutSec === undefined
      ? {}
      : { bashMaxTimeoutSec: options.bashMaxTimeoutSec }),
  };
  return { env, toolOptions };
}
