/**
 * How one stdio MCP server is started: its environment (the tools' plus `permissions.env` plus
 * its own `env`, never a secret), its view (the tools' grants, its own code, its `permissions`),
 * the checks that refuse a server that could not run before it is spawned, and the grant that
 * would fix one that failed.
 */
import { dirname, resolve } from "node:path";
import type { McpStdioServer } from "../mcp/mod.ts";
import { isWithin, resolveHome, toolEnvironment } from "../policy/mod.ts";
import type { ConfiguredMcpServer } from "./config.ts";
import { missingScript, type OwnCode, ownCode } from "./mcp_own_code.ts";
import {
  launcherHint,
  launcherNeeds,
  readableIn,
  readGrantHint,
  resolvePermissions,
  type ServerPermissions,
  type ServerView,
  serverView,
  unreadableArgs,
  viewSummary,
} from "./mcp_view.ts";
import type { RunSetup, SandboxHandle } from "./setup.ts";

/** A stdio server ready to be spawned (confined or not), or why it is not started. */
export type StdioPlan =
  | {
    ok: true;
    env: Record<string, string>;
    cwd: string;
    /** The confined command line; undefined without bubblewrap. */
    confined?: string[];
    /** Why it must not be spawned (its program or script is missing or denied), if so. */
    refused?: string;
    /** What it can read, write and reach, on one line. */
    summary: string;
    view: ServerView;
    /** The grant or setting that would fix a start that failed with `error`. */
    explain(error: string): string | undefined;
  }
  | { ok: false; warning: string };

/** Works out the environment, view and command line of a stdio server. */
export function planStdio(
  setup: Pick<RunSetup, "env" | "workspace" | "paths">,
  sandbox: Pick<SandboxHandle, "grants" | "confine" | "toolEnv">,
  entry: ConfiguredMcpServer & { server: McpStdioServer },
  options: { secretEnvNames: readonly string[]; name: string },
): StdioPlan {
  const { server, file } = entry;
  const notStarted = (why: string): StdioPlan => ({
    ok: false,
    warning: `MCP server ${options.name} was not started: ${why}`,
  });
  const secrets = new Set(options.secretEnvNames);
  const cwd = server.cwd === undefined ? setup.workspace : resolve(dirname(file), server.cwd);
  const ops = setup.paths;
  const homeDir = ops === undefined ? undefined : resolveHome(setup.env["HOME"], ops);
  const home = homeDir?.ok ? homeDir.path : undefined;
  let permissions: ServerPermissions = { read: [], write: [], net: [], env: [], run: [] };
  let own: OwnCode = { paths: [] };
  let refused: string | undefined;
  const toolEnv = sandbox.toolEnv?.() ?? {};
  const path = server.env["PATH"] ?? toolEnv["PATH"];
  if (ops !== undefined) {
    const resolved = resolvePermissions(server.permissions, {
      workspace: setup.workspace,
      home,
      path,
      ops,
    });
    if (!resolved.ok) refused = `${resolved.error} (in "${file}")`;
    else permissions = resolved.permissions;
    own = ownCode(server.command, server.args, { cwd, path, ...(home ? { home } : {}), ops });
    const problem = startProblem(server, own, { cwd, path, ops, grants: sandbox.grants });
    if (problem !== undefined) refused ??= `${problem} (in "${file}")`;
  }
  const env: Record<string, string> = {
    ...toolEnv,
    ...toolEnvironment(
      { env: permissions.env, ignoreEnv: sandbox.grants.ignoreEnv },
      setup.env,
      options.secretEnvNames,
    ),
  };
  for (const [k, v] of Object.entries(server.env)) if (!secrets.has(k)) env[k] = v;
  const sandboxed = serverView(sandbox.grants, own, permissions);
  // Found on PATH through a symlink the view does not show (the bin/ of a global npm install):
  // it runs by its real path, which its own code holds.
  let program = server.command;
  if (ops !== undefined && own.program !== undefined && !server.command.includes("/")) {
    const real = ops.realPath(own.program);
    if (real.ok && !readableIn(sandboxed, own.program)) program = real.path;
  }
  const confined = sandbox.confine?.({
    command: [program, ...server.args],
    env,
    cwd,
    readOnly: [...own.paths, ...permissions.read, ...permissions.run],
    readWrite: permissions.write,
    net: permissions.net,
    name: server.name,
  });
  if (confined !== undefined && "error" in confined) return notStarted(confined.error);
  // Without bubblewrap (--allow-unsandboxed-mcp) nothing confines it.
  const view: ServerView = confined === undefined
    ? { read: true, write: true, net: true, denyRead: [] }
    : sandboxed;
  const explain = (error: string): string | undefined => {
    if (ops === undefined) return undefined;
    const hints: string[] = [];
    const execvp = /bwrap: execvp (.+?): No such file or directory/.exec(error)?.[1];
    const dirs = unreadableArgs(
      [...(execvp === undefined ? [] : [execvp]), ...server.args],
      view,
      { cwd, ops },
    );
    const origin = { name: server.name, origin: entry.origin, file };
    if (dirs.length > 0) hints.push(readGrantHint(origin, dirs));
    else if (execvp !== undefined) {
      hints.push(`"${execvp}" is not in the server's view: name it by a path it can read`);
    }
    const needs = launcherNeeds(server.command, view, { env, home, ops, args: server.args });
    if (needs !== undefined) hints.push(launcherHint(needs, origin));
    return hints.length === 0 ? undefined : hints.join("; ");
  };
  return {
    ok: true,
    env,
    cwd,
    ...(confined === undefined ? {} : { confined: confined.argv }),
    ...(refused === undefined ? {} : { refused }),
    summary: viewSummary(view, home) + (confined === undefined ? " (not sandboxed)" : ""),
    view,
    explain,
  };
}

/** Why the server cannot run at all (its program or script is missing or denied), if so. */
function startProblem(
  server: McpStdioServer,
  own: OwnCode,
  options: {
    cwd: string;
    path: string | undefined;
    ops: NonNullable<RunSetup["paths"]>;
    grants: SandboxHandle["grants"];
  },
): string | undefined {
  const { ops, grants } = options;
  if (own.program === undefined) {
    return server.command.includes("/")
      ? `its program "${resolve(options.cwd, server.command)}" does not exist or is not ` +
        `executable: fix "command"`
      : `its program "${server.command}" is not on the PATH ("${options.path ?? ""}"): name it ` +
        `by its path in "command", or set PATH in the server's "env"`;
  }
  const missing = missingScript(server.command, server.args, { cwd: options.cwd, ops });
  if (missing !== undefined) return `its script "${missing}" does not exist: fix "args"`;
  for (const [what, p] of [["program", own.program], ["script", own.script]] as const) {
    if (p === undefined) continue;
    const real = ops.realPath(p);
    const denied = real.ok ? grants.denyRead.find((d) => isWithin(real.path, d)) : undefined;
    if (denied !== undefined) {
      return `its ${what} "${p}" is in --deny-read ("${denied}"), so it cannot run: drop that ` +
        "from --deny-read to use the server";
    }
  }
  return undefined;
}
