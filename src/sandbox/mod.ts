/**
 * `createSandbox`: the one entry point the CLI uses to get the tools and the permission policy of
 * a run. Tools execute in a tool host — a bwrap'd moat subprocess whose filesystem view is built
 * from the grants, running them in a Worker with the grants as Deno permissions — or, without
 * bubblewrap, in that same Worker inside this process.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  bashViewArgs,
  binDirs,
  buildHostArgs,
  type BwrapProbe,
  hostViewProblem,
  nestedBashPrefix,
  probeBwrap,
} from "../policy/bwrap.ts";
import type { CommandOps, PathOps, ScanOps } from "../policy/ops.ts";
import {
  createPermissionPolicy,
  type LocationState,
  type PermissionDecision,
  permissionDescriptor,
  type PolicyHook,
} from "../policy/check.ts";
import type { Prompter } from "../policy/approve.ts";
import {
  grantFlagHint,
  type Grants,
  toolEnvironment,
  UsageError,
  widenGrants,
} from "../policy/grants.ts";
import {
  computeProtection,
  findProtection,
  protectedDetail,
  type Protection,
} from "../policy/protected.ts";
import { type DeniedPath, scanDenied } from "../policy/deny_view.ts";
import { findProgramCopies } from "../policy/program_copies.ts";
import { type BuiltinToolOptions, createBuiltinTools, selectTools } from "../tools/registry.ts";
import type { AnyTool, ToolLocation } from "../tools/types.ts";
import { createDenoCommandOps } from "../sys/command.ts";
import { createDenoHostProcessOps } from "../sys/host_process.ts";
import { createDenoApprovalFileOps, createDenoScanOps } from "../sys/paths.ts";
import { createDenoRuntimeOps } from "../sys/runtime.ts";
import { createDenoNetOps } from "../sys/net.ts";
import { createBashNetwork } from "./_bash_net.ts";
import {
  type HostConnection,
  type QueryAnswer,
  startProcessHost,
  startWorkerHost,
  ToolHostClient,
} from "./client.ts";
import type { ApprovalFileOps, HostProcessOps, NetOps, RuntimeOps } from "./ops.ts";
import type { HostConfig, WireToolOptions } from "./protocol.ts";
import { workerModuleUrl } from "./worker_modules.ts";
import { trackPrograms } from "./_bash_programs.ts";

export { runToolHost, type ToolHostIo } from "./host.ts";

/** `--sandbox`: auto (bwrap when usable), require (exit 2 when not), off (Worker only). */
export type SandboxMode = "auto" | "require" | "off";

/** The hidden sub-command main.ts dispatches to `runToolHost`. */
export const TOOL_HOST_COMMAND = "__tool-host";

/** Runtime flags of the tool host process under `deno run` (those of `deno task start`). */
export const HOST_RUNTIME_FLAGS: readonly string[] = [
  "--unstable-worker-options",
  "--allow-all",
  "--no-prompt",
  "--v8-flags=--enable-experimental-regexp-engine-on-excessive-backtracks",
];

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

/** The effects a sandbox uses; the Deno implementations live in src/sys/. */
export interface SandboxSys {
  /** Spawns the tool host process (bwrap mode). */
  processes: HostProcessOps;
  /** The moat executable, main module and Deno's cache directory. */
  runtime: RuntimeOps;
  /** Path look-ups for the bwrap view, the project root and the protected paths. */
  paths: ScanOps;
  /** Runs the bubblewrap probe commands. */
  commands: CommandOps;
  /** Creates an approved new file, so that the tool host mounts exactly that file. */
  files: ApprovalFileOps;
  /** Sockets of bash's network proxy under a scoped --allow-net (bwrap mode). */
  net: NetOps;
}

function denoSandboxSys(): SandboxSys {
  return {
    processes: createDenoHostProcessOps(),
    runtime: createDenoRuntimeOps(),
    paths: createDenoScanOps(),
    commands: createDenoCommandOps(),
    files: createDenoApprovalFileOps(),
    net: createDenoNetOps(),
  };
}

/** Options of `createSandbox`. */
export interface SandboxOptions {
  /** The workspace (real path). */
  cwd: string;
  grants: Grants;
  /** Per-run bash spill directory (created by the caller); tools may always read and write it. */
  spillDir: string;
  /** moat's own environment: the source of the tools' allow-listed environment. */
  env: Record<string, string>;
  /** Variables that never reach a tool, even with --allow-env or -A (API key, model config). */
  secretEnvNames: string[];
  /** Default "auto". */
  sandbox?: SandboxMode;
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
  /** Test seam: the Worker module that runs the tools (default ./worker.ts). */
  workerUrl?: string;
  /**
   * The script that dispatches `__tool-host` to `runToolHost` under `deno run` (default: the
   * main module). Tests pass their own entry script.
   */
  hostScript?: string;
  /** Effects (src/cli/deps.ts passes them); each one missing defaults to its src/sys/ version. */
  sys?: Partial<SandboxSys>;
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
  /** Kills the tool host and every process group in it. Idempotent. */
  close(): Promise<void>;
}

/** Creates the tool host (started right away) and the policy for a run. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const requested = options.sandbox ?? "auto";
  const warnings: string[] = [];
  const sys: SandboxSys = { ...denoSandboxSys(), ...options.sys };
  // Only the OS sandbox re-executes moat; --sandbox=off needs no launch (nor `deno info`).
  const launchPromise = requested === "off"
    ? undefined
    : hostLaunch(sys, { script: options.hostScript, env: options.env });
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
  const bwrap = probe?.usable ? probe : undefined;
  // Found in parallel with the probe; awaited either way so no lookup outlives this call.
  const launch = await launchPromise;

  const env = toolEnvironment(options.grants, options.env, options.secretEnvNames);
  if (bwrap) env["TMPDIR"] = "/tmp";
  const toolOptions: WireToolOptions = {
    cwd: options.cwd,
    spillDir: options.spillDir,
    env,
    ...(options.bashTimeoutSec === undefined ? {} : { bashTimeoutSec: options.bashTimeoutSec }),
    ...(options.bashMaxTimeoutSec === undefined
      ? {}
      : { bashMaxTimeoutSec: options.bashMaxTimeoutSec }),
  };
  const workerUrl = options.workerUrl ?? workerModuleUrl("tools");
  // Once, from the start's grants and real paths: approvals widen the grants, never lift this,
  // and every tool host of the run (restarts included) enforces it. A directory approved later
  // may hold a repository of its own: its hooks and config are added then (only ever added).
  const scan = computeProtection(options.grants, {
    workspace: options.cwd,
    env: options.env,
    ops: sys.paths,
  });
  let protection = scan.protection;
  warnings.push(...scan.warnings);
  // Also once: each denied path's kind and identity, which every later tool host must find again.
  const denied = scanDenied(options.grants, sys.paths);
  const deniedIds = (access: DeniedPath["access"]) =>
    denied.filter((d) => d.access === access && d.kind === "file" && d.id !== undefined)
      .map((d) => d.id as string);
  // --deny-run masks every name of the program in the view: hardlinks and identical copies.
  const deniedPrograms = bwrap && options.grants.denyRun.length > 0
    ? await findProgramCopies(options.grants.denyRun, {
      binDirs: binDirs(env["PATH"], { paths: sys.paths }),
      paths: sys.paths,
      commands: sys.commands,
    })
    : [];

  // Under a scoped --allow-net, bash reaches the network only through moat's proxy.
  const bashNet = bwrap
    ? createBashNetwork({
      cwd: options.cwd,
      spillDir: options.spillDir,
      grants: () => grants,
      ...(options.onDecision === undefined ? {} : { onDecision: options.onDecision }),
      net: sys.net,
      warn: (message) => warnings.push(message),
    })
    : undefined;

  const startHost = (grants: Grants): HostConnection => {
    const config: HostConfig = {
      workerUrl,
      permissions: workerPermissions(grants, {
        spillDir: options.spillDir,
        ...(bwrap ? { bwrapPath: bwrap.path } : {}),
      }),
      toolOptions: {
        ...toolOptions,
        guard: {
          denyRead: grants.denyRead,
          denyWrite: grants.denyWrite,
          protection,
          deniedIds: { read: deniedIds("read"), write: deniedIds("write") },
          recheckOpens: !bwrap,
        },
      },
    };
    if (!bwrap || launch === undefined) return startWorkerHost(config);
    const netProxy = bashNet?.hostConfig(grants);
    if (netProxy !== undefined) config.netProxy = netProxy;
    const view = {
      bwrapPath: bwrap.path,
      grants,
      cwd: options.cwd,
      spillDir: options.spillDir,
      readOnlyPaths: launch.readOnlyPaths,
      ...(env["PATH"] === undefined ? {} : { toolPath: env["PATH"] }),
      paths: sys.paths,
      protection,
      denied,
      deniedPrograms,
    };
    // A granted, denied or protected path that became a symlink (or another file) since the
    // start would mount what it leads to: no host then.
    const problem = hostViewProblem(view);
    if (problem !== undefined) return failedHost(problem);
    // Under a scoped --allow-run, bash must not run moat's own runtime either.
    const hidePaths = grants.explicit.run && grants.run !== true ? [launch.executable] : [];
    config.toolOptions.bashCommandPrefix = nestedBashPrefix(
      bwrap.path,
      hidePaths,
      bashViewArgs(view),
    );
    const hostEnv: Record<string, string> = {
      ...env,
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
      ...(launch.denoDir === undefined ? {} : { DENO_DIR: launch.denoDir }),
    };
    const args = buildHostArgs({ ...view, env: hostEnv, command: launch.command });
    return startProcessHost([bwrap.path, ...args], config, { processes: sys.processes });
  };

  let grants = options.grants;
  let generation = 0;
  let current = { client: new ToolHostClient(() => startHost(grants)), generation };
  const retired: Promise<void>[] = [];
  const ephemeral = new Set<ToolHostClient>();
  const onceApprovals = new Map<string, ToolLocation[]>();
  const programsOnce: ToolLocation[] = [];
  const active = (): ToolHostClient => {
    if (current.generation !== generation) {
      retired.push(current.client.closeWhenIdle());
      const widened = grants;
      current = { client: new ToolHostClient(() => startHost(widened)), generation };
    }
    return current.client;
  };
  current.client.warmUp();

  const denyClient = hasDenyLists(options.grants)
    ? new ToolHostClient(() =>
      startWorkerHost({
        workerUrl: workerModuleUrl("query"),
        permissions: denyPermissions(options.grants),
        toolOptions: { cwd: options.cwd, spillDir: options.spillDir },
      })
    )
    : undefined;

  const policy = createPermissionPolicy({
    engine: {
      async query(locations) {
        const descriptors = locations.map(permissionDescriptor);
        const [allowed, denied] = await Promise.all([
          active().query(descriptors),
          denyClient?.query(descriptors) ??
            Promise.resolve<QueryAnswer>({ ok: true, states: [] }),
        ]);
        if (!allowed.ok) return allowed;
        if (!denied.ok) return denied;
        return {
          ok: true,
          states: locations.map((_, i): LocationState =>
            denied.states[i] === "granted"
              ? "denied"
              : allowed.states[i] === "granted"
              ? "granted"
              : "prompt"
          ),
        };
      },
    },
    ...(options.prompter === undefined ? {} : { prompter: options.prompter }),
    ...(options.noPrompt === undefined ? {} : { noPrompt: options.noPrompt }),
    ...(options.onDecision === undefined ? {} : { onDecision: options.onDecision }),
    grantFlag: (location) =>
      grantFlagHint(grants, location, { cwd: options.cwd, paths: sys.paths }),
    protectedWrite(path) {
      const hit = findProtection(protection, path);
      return hit === undefined ? undefined : protectedDetail(protection, hit);
    },
    onApproved({ toolCallId, location, scope }) {
      // The view grows by exactly the approved path: a new file is created first (its directory
      // exists), so that the host can mount that one file and never its directory.
      if (bwrap && location.access === "write" && scope !== "directory") {
        createApprovedFile(location.path, sys);
      }
      if (scope === "always") {
        grants = widenForApproval(grants, location);
        generation++;
      } else if (scope === "directory" && "path" in location) {
        grants = widenForApproval(grants, { ...location, path: dirname(location.path) });
        protection = withMoreProtection(protection, grants, {
          cwd: options.cwd,
          env: options.env,
          sys,
        });
        generation++;
      } else {
        onceApprovals.set(toolCallId, [...(onceApprovals.get(toolCallId) ?? []), location]);
      }
    },
  });

  // A write grant may name a file that does not exist yet (`--allow-write=.,/tmp/out.txt`): the
  // view mounts only what exists, so such a file is created (empty) when a call may write it, and
  // the next host mounts exactly it.
  const createGrantedFiles = async (call: Parameters<PolicyHook>[0]) => {
    if (grants.write === true) return;
    const writes = await Promise.resolve(call.tool.locations?.(call.args) ?? []).catch(() => []);
    for (const location of writes) {
      if (location.access !== "write" || !grants.write.includes(location.path)) continue;
      if (sys.paths.lstat(location.path) !== undefined) continue;
      createApprovedFile(location.path, sys);
      if (sys.paths.lstat(location.path) !== undefined) generation++;
    }
  };

  const createTools = options.createTools ?? createBuiltinTools;
  const local = createTools({ ...toolOptions, bashCommandPrefix: [] });
  const selected = options.tools === undefined ? local : selectTools(local, options.tools);
  const tools = selected.map((tool): AnyTool => ({
    ...tool,
    async execute(args, signal, ctx) {
      const call = { toolCallId: ctx.toolCallId, signal, onUpdate: ctx.onUpdate };
      if (tool.name === "bash" && programsOnce.length > 0) {
        // Programs the user allowed "for the next bash call" after one was refused.
        const pending = programsOnce.splice(0);
        onceApprovals.set(ctx.toolCallId, [
          ...(onceApprovals.get(ctx.toolCallId) ?? []),
          ...pending,
        ]);
      }
      const once = onceApprovals.get(ctx.toolCallId);
      if (once === undefined) return await active().execute(tool.name, args, call);
      // A "yes once" approval: this call alone runs in a host with the widened grants.
      onceApprovals.delete(ctx.toolCallId);
      const widened = once.reduce(widenForApproval, grants);
      const client = new ToolHostClient(() => startHost(widened));
      ephemeral.add(client);
      try {
        return await client.execute(tool.name, args, call);
      } finally {
        ephemeral.delete(client);
        await client.close();
      }
    },
  }));

  // Under a scoped --allow-run the view masks the programs not granted: name them after a call.
  const tracked = bwrap === undefined ? tools : trackPrograms(tools, {
    cwd: options.cwd,
    grants: () => grants,
    binDirs: () => binDirs(env["PATH"], { paths: sys.paths }),
    paths: sys.paths,
    ...(options.prompter === undefined ? {} : { prompter: options.prompter }),
    ...(options.noPrompt === undefined ? {} : { noPrompt: options.noPrompt }),
    ...(options.onDecision === undefined ? {} : { onDecision: options.onDecision }),
    allowAlways(location) {
      grants = widenForApproval(grants, location);
      generation++;
    },
    allowOnce: (location) => void programsOnce.push(location),
  });

  let closing: Promise<void> | undefined;
  return {
    tools: bashNet === undefined ? tracked : bashNet.track(tracked),
    onToolCall: async (call) => {
      const verdict = await policy(call);
      if (verdict === undefined && bwrap) await createGrantedFiles(call);
      return verdict;
    },
    mode: bwrap ? "bwrap" : "worker",
    warnings,
    get grants() {
      return grants;
    },
    get protection() {
      return protection;
    },
    close() {
      closing ??= (async () => {
        await Promise.all([
          current.client.close(),
          denyClient?.close(),
          bashNet?.close(),
          ...[...ephemeral].map((c) => c.close()),
          ...retired,
        ]);
      })();
      return closing;
    },
  };
}

/**
 * A tool host that could not be started: gone from the start, so each call and query sent to it
 * fails with `reason` (the client says so), and the next one tries to start a host again.
 */
function failedHost(reason: string): HostConnection {
  return {
    onMessage: () => {},
    send() {},
    closed: Promise.resolve(reason),
    close: () => Promise.resolve(),
  };
}

/**
 * `protection` plus what protects the widened `grants` (a repository inside a newly approved
 * directory): paths and anchors are only ever added, never removed.
 */
function withMoreProtection(
  protection: Protection,
  grants: Grants,
  options: { cwd: string; env: Record<string, string>; sys: Pick<SandboxSys, "paths"> },
): Protection {
  const more = computeProtection(
    { ...grants, namedWrite: protection.named },
    { workspace: options.cwd, env: options.env, ops: options.sys.paths },
  ).protection;
  const known = new Set(protection.paths.map((p) => p.path));
  return {
    ...protection,
    paths: [...protection.paths, ...more.paths.filter((p) => !known.has(p.path))],
    anchors: [...new Set([...protection.anchors, ...more.anchors])],
  };
}

/** Creates an approved file that does not exist yet, when its directory is a real directory. */
function createApprovedFile(path: string, sys: Pick<SandboxSys, "paths" | "files">): void {
  if (sys.paths.lstat(path) !== undefined) return;
  const parent = dirname(path);
  const real = sys.paths.realPath(parent);
  if (!real.ok || real.path !== parent || sys.paths.stat(parent)?.kind !== "dir") return;
  sys.files.createEmptyFile(path);
}

/**
 * Grants widened by an approved location. An approved write also lets the tools read that one
 * path: writing a file needs its real path (and the edit tool reads it), which Deno ties to read
 * permission. Deny lists stay as they are.
 */
function widenForApproval(grants: Grants, location: ToolLocation): Grants {
  const next = widenGrants(grants, location);
  if (location.access === "write" && next.read !== true && !next.read.includes(location.path)) {
    next.read = [...next.read, location.path];
  }
  return next;
}

/**
 * The tool Worker's Deno permissions for `grants`. With bubblewrap, bash runs through the nested
 * bwrap and the OS sandbox scopes what it runs; without, `--allow-run` applies to bash itself.
 */
export function workerPermissions(
  grants: Grants,
  options: { spillDir: string; bwrapPath?: string },
): Deno.PermissionOptionsObject {
  const paths = (scope: true | string[]) => scope === true ? true : [...scope, options.spillDir];
  const list = (scope: true | string[]) => scope === true ? true : scope.length ? scope : false;
  const run = options.bwrapPath !== undefined
    ? (grants.run === true ? true : ["bash", options.bwrapPath])
    : list(grants.run);
  return {
    read: paths(grants.read),
    write: paths(grants.write),
    run,
    net: list(grants.net),
    env: false,
    sys: false,
    ffi: false,
    import: false,
  };
}

function hasDenyLists(grants: Grants): boolean {
  return grants.denyRead.length + grants.denyWrite.length + grants.denyRun.length > 0;
}

function denyPermissions(grants: Grants): Deno.PermissionOptionsObject {
  const list = (items: string[]) => items.length ? items : false;
  return {
    read: list(grants.denyRead),
    write: list(grants.denyWrite),
    run: list(grants.denyRun),
    net: false,
    env: false,
    sys: false,
    ffi: false,
    import: false,
  };
}

/** How to start the tool host process and what of moat it must see. */
export interface HostLaunch {
  command: string[];
  /** The moat executable (the deno binary under `deno run`). */
  executable: string;
  readOnlyPaths: string[];
  denoDir?: string;
}

/** Works out the tool host command: the binary itself when compiled, else `deno run` + script. */
export async function hostLaunch(
  sys: SandboxSys,
  options: { script: string | undefined; env: Record<string, string> },
): Promise<HostLaunch> {
  const executable = sys.runtime.execPath();
  // The binary's name says nothing (deno may be installed under any name); the runtime knows.
  if (sys.runtime.standalone()) {
    return { command: [executable, TOOL_HOST_COMMAND], executable, readOnlyPaths: [executable] };
  }
  const entry = options.script ?? fileURLToPath(sys.runtime.mainModule());
  const config = findUp(sys.paths, dirname(entry), "deno.json");
  const project = config === undefined ? dirname(entry) : dirname(config);
  const denoDir = options.env["DENO_DIR"] ?? await sys.runtime.denoDir(executable);
  // Of Deno's cache only moat's own npm packages and moat's own transpiled modules: the rest holds
  // other projects' code (their transpiled sources, with whatever secrets those contain).
  const cached = denoDir === undefined ? [] : [
    ...lockedPackages(sys.paths, config).map((name) =>
      join(denoDir, "npm", "registry.npmjs.org", name)
    ),
    join(denoDir, "gen", "file", project),
  ].filter((p) => sys.paths.lstat(p) !== undefined);
  return {
    command: [
      executable,
      "run",
      ...HOST_RUNTIME_FLAGS,
      ...(config === undefined ? [] : ["--config", config]),
      entry,
      TOOL_HOST_COMMAND,
    ],
    executable,
    readOnlyPaths: [executable, project, ...cached],
    ...(denoDir === undefined ? {} : { denoDir }),
  };
}

/** The npm package names in the lock file next to `config` (deno.lock), e.g. "@scope/name". */
function lockedPackages(paths: ScanOps, config: string | undefined): string[] {
  if (config === undefined) return [];
  const text = paths.readTextFile(join(dirname(config), "deno.lock"), 4 * 1024 * 1024);
  if (text === undefined) return [];
  try {
    const npm = (JSON.parse(text) as { npm?: Record<string, unknown> }).npm ?? {};
    // "name@version" (a scope's "@" comes first): the name is everything before the last "@".
    return [...new Set(Object.keys(npm).map((key) => key.slice(0, key.lastIndexOf("@"))))]
      .filter((name) => name !== "" && !name.includes(".."));
  } catch {
    return [];
  }
}

function findUp(paths: PathOps, start: string, name: string): string | undefined {
  let dir = start;
  for (;;) {
    const candidate = join(dir, name);
    if (paths.stat(candidate)?.kind === "file") return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
