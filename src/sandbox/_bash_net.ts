/**
 * bash's network under a scoped `--allow-net` with bubblewrap: the tool host keeps its own network
 * namespace, and bash reaches the granted hosts only through the proxy of src/sandbox/net/proxy.ts
 * in this process. The proxy asks a query-only Worker whose net permissions are the run's current
 * grants (replaced when an "always" approval widens them), and each connection is reported as a
 * permission decision of the bash call that is running.
 */
import { join } from "node:path";
import { entryOf, type Grants, type PermissionDecision, type Scope } from "../policy/mod.ts";
import type { AnyTool } from "../tools/mod.ts";
import { netDecisions, remember } from "./_net_decisions.ts";
import { ToolHostClient } from "./host/client.ts";
import { startWorkerHost } from "./host/connection.ts";
import { tokenHex } from "./net/forward.ts";
import { type NetProxyResult, startNetProxy } from "./net/proxy.ts";
import type { NetOps } from "./ops.ts";

/** Options of `createBashNetwork`. */
export interface BashNetworkOptions {
  cwd: string;
  /** The per-run spill directory: the proxy's socket lives here (the host and bash see it). */
  spillDir: string;
  /** The run's grants as they are now (widened by "always" approvals). */
  grants(): Grants;
  /** Receives each connection decision of the proxy. */
  onDecision?: (decision: PermissionDecision) => void;
  net: NetOps;
  /** The module URL of the query Worker (./worker/query_worker.ts) that checks a target. */
  queryWorkerUrl: string;
  /** Receives a one-line notice when the proxy cannot start. */
  warn(message: string): void;
  /** Whether "host:port" is in `--deny-net` (Deno's deny Worker says so); wins over the grants. */
  denied?(target: string): Promise<boolean>;
}

/** The proxy side of a run in bubblewrap mode. */
export interface BashNetwork {
  /**
   * The `netProxy` of a tool host started with `grants`: set under a scoped net grant (the proxy
   * starts on first use), undefined otherwise and when the proxy cannot run (then bash has no
   * network).
   */
  hostConfig(
    grants: Grants,
  ): { socketPath: string; token: string; loopbackDirect: boolean } | undefined;
  /** `tools` with the bash tool wrapped, so that decisions name the bash call that is running. */
  track(tools: AnyTool[]): AnyTool[];
  /** Stops the proxy and its query Worker. Idempotent. */
  close(): Promise<void>;
}

/** Most targets remembered per call for not repeating a "granted" decision. */
const MAX_REMEMBERED = 1000;

/** Creates the (not yet started) proxy side of a run. */
export function createBashNetwork(options: BashNetworkOptions): BashNetwork {
  let proxy: NetProxyResult | undefined;
  let query: { key: string; client: ToolHostClient } | undefined;
  const retired: Promise<void>[] = [];
  const running = new Set<string>();
  // "granted" is recorded once per call and target; every denial is recorded.
  const reported = new Map<string, Set<string>>();
  // Per running call, the targets refused (told to the model after the call).
  const refused = new Map<string, Set<string>>();
  // Per running call, the granted targets that did not answer, with why.
  const unreachable = new Map<string, Map<string, string>>();
  // Worded like an MCP server's proxy's; --deny-net refusals name no flag (none would allow them).
  const decisions = netDecisions(options);
  const token = crypto.getRandomValues(new Uint8Array(32));

  const queryClient = (): ToolHostClient => {
    const net = options.grants().net;
    const key = JSON.stringify(net);
    if (query?.key !== key) {
      if (query !== undefined) retired.push(query.client.closeWhenIdle());
      query = {
        key,
        client: new ToolHostClient(() =>
          startWorkerHost({
            workerUrl: options.queryWorkerUrl,
            permissions: netPermissions(net),
            toolOptions: { cwd: options.cwd, spillDir: options.spillDir },
          })
        ),
      };
    }
    return query.client;
  };

  const record = (target: string, allowed: boolean) => {
    const toolCallId = running.size === 1 ? [...running][0] ?? "" : "";
    if (!allowed && toolCallId !== "") refused.get(toolCallId)?.add(target);
    if (allowed) {
      const seen = reported.get(toolCallId) ?? new Set<string>();
      if (seen.has(target)) return;
      remember(seen, target);
      reported.set(toolCallId, seen);
    }
    decisions.report({ toolCallId, toolName: "bash" }, target, allowed);
  };
  const refusal = decisions.refusal;

  const start = (): NetProxyResult => {
    const socketPath = join(options.spillDir, `.moat-net-${crypto.randomUUID().slice(0, 8)}.sock`);
    const started = startNetProxy({
      socketPath,
      net: options.net,
      // The spill directory is an MCP server's too: only the host's forwarder may use the proxy.
      token,
      allowed: (target) => decisions.allowed(target, queryClient()),
      onDecision: ({ target, allowed }) => record(target, allowed),
      refusal,
      onUnreachable: ({ target, message }) => {
        const toolCallId = running.size === 1 ? [...running][0] ?? "" : "";
        const seen = unreachable.get(toolCallId);
        if (seen !== undefined && seen.size < MAX_REMEMBERED) seen.set(target, message);
      },
    });
    // Without a net grant bash has no network either way: no notice then.
    if (!started.ok && !isEmptyScope(options.grants().net)) {
      options.warn(
        `The network proxy for bash cannot start (${started.message}): bash calls have no ` +
          "network in this run; use a shorter temporary directory (TMPDIR) or --allow-net " +
          "without a value",
      );
    }
    return started;
  };

  let closing: Promise<void> | undefined;
  return {
    hostConfig(grants) {
      // A bare --allow-net shares the machine's network, unless --deny-net needs the proxy.
      // Without a net grant too: every attempt is then seen, refused and reported as a denial
      // naming the flag (instead of bash's "Could not resolve host").
      const proxied = grants.net === true ? grants.denyNet.length > 0 : true;
      if (!proxied || closing !== undefined) return undefined;
      proxy ??= start();
      if (!proxy.ok) return undefined;
      // Loopback is the host's network namespace's own (the run's calls and jobs), unless the
      // grants name the machine's: that is reached through the proxy.
      const loopbackDirect = grants.net !== true && !grants.net.some(isLoopbackEntry);
      return { socketPath: proxy.proxy.socketPath, token: tokenHex(token), loopbackDirect };
    },
    track(tools) {
      return tools.map((tool): AnyTool =>
        tool.name !== "bash" ? tool : {
          ...tool,
          async execute(args, signal, ctx) {
            running.add(ctx.toolCallId);
            const targets = new Set<string>();
            refused.set(ctx.toolCallId, targets);
            const silent = new Map<string, string>();
            unreachable.set(ctx.toolCallId, silent);
            try {
              const result = await tool.execute(args, signal, ctx);
              // Clients often show only "403" or "502" for a tunnel: say whose refusal it was.
              const notes = [
                ...(targets.size === 0
                  ? []
                  : [refusalNote([...targets], options.grants().net, decisions.listed)]),
                ...(silent.size === 0 ? [] : [unreachableNote(silent)]),
              ];
              if (notes.length === 0) return result;
              return { ...result, output: `${result.output}\n${notes.join("\n")}` };
            } finally {
              running.delete(ctx.toolCallId);
              reported.delete(ctx.toolCallId);
              refused.delete(ctx.toolCallId);
              unreachable.delete(ctx.toolCallId);
            }
          },
        }
      );
    },
    close() {
      closing ??= (async () => {
        if (proxy?.ok) await proxy.proxy.close();
        await Promise.all([query?.client.close(), ...retired]);
      })();
      return closing;
    },
  };
}

/**
 * The note a bash result gets when the proxy refused connections during the call; the flag keeps
 * the hosts `granted` already (a flag replaces the list).
 */
export function refusalNote(
  all: string[],
  granted: Scope = [],
  denyListed: ReadonlySet<string> = new Set(),
): string {
  const denied = all.filter((t) => denyListed.has(t));
  const deniedNote = denied.length === 0
    ? ""
    : `[moat refused network access to ${
      denied.slice(0, 5).map((t) => `"${t}"`).join(", ")
    }: denied by --deny-net; no grant allows it]`;
  const targets = all.filter((t) => !denyListed.has(t));
  if (targets.length === 0) return deniedNote;
  const shown = targets.slice(0, 5);
  const more = targets.length > shown.length ? `, and ${targets.length - shown.length} more` : "";
  const flag = [...new Set([...(granted === true ? [] : granted), ...shown])].join(",");
  return `[moat refused network access to ${shown.map((t) => `"${t}"`).join(", ")}${more}: ` +
    `not granted; add --allow-net=${flag} to allow it]` +
    (deniedNote === "" ? "" : `\n${deniedNote}`);
}

/**
 * The note a bash result gets when granted hosts did not answer: not a refusal of moat's, so the
 * model does not ask for a grant it has.
 */
export function unreachableNote(failures: ReadonlyMap<string, string>): string {
  const shown = [...failures].slice(0, 5);
  const more = failures.size > shown.length ? `, and ${failures.size - shown.length} more` : "";
  return `[moat: network access to ${
    shown.map(([t, why]) => `"${t}" (${why})`).join(", ")
  }${more} is granted, but the host did not answer]`;
}

function isEmptyScope(scope: Scope): boolean {
  return scope !== true && scope.length === 0;
}

/** A query-only Worker's permissions: the net grants, nothing else. */
export function netPermissions(net: Scope): Deno.PermissionOptionsObject {
  return {
    read: false,
    write: false,
    run: false,
    net: net === true ? true : net.length > 0 ? net : false,
    env: false,
    sys: false,
    ffi: false,
    import: false,
  };
}

/** Whether a net grant entry (`host` or `host:port`, IPv6 in brackets) names a loopback host. */
export function isLoopbackEntry(entry: string): boolean {
  const name = entryOf(entry).host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost") || /^127\./.test(name) ||
    name === "::1" || name === "0.0.0.0";
}
