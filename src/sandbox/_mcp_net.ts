/**
 * The network of proxied MCP servers (bwrap mode): each stdio server whose allowed hosts are a
 * list (or that runs under --deny-net) gets a proxy of its own in this process, on a UNIX socket
 * in the spill directory that only a connection beginning with its token may use (bash sees that
 * directory too). The proxy asks a query-only Worker whose net permissions are that server's
 * hosts, and each decision is reported as a permission decision of `mcp:<server>`.
 */
import { join } from "node:path";
import type { Grants, PermissionDecision, Scope } from "../policy/mod.ts";
import { netPermissions } from "./_bash_net.ts";
import { netDecisions, remember } from "./_net_decisions.ts";
import { ToolHostClient } from "./host/client.ts";
import { startWorkerHost } from "./host/connection.ts";
import { tokenHex } from "./net/forward.ts";
import { type NetProxy, startNetProxy } from "./net/proxy.ts";
import type { NetOps } from "./ops.ts";

/** Options of `createMcpNetwork`. */
export interface McpNetworkOptions {
  cwd: string;
  /** The per-run spill directory, where the proxies' sockets live. */
  spillDir: string;
  /** The run's grants (the hint names the flag that keeps the hosts granted already). */
  grants(): Grants;
  /** Receives each connection decision of a server's proxy. */
  onDecision?: (decision: PermissionDecision) => void;
  net: NetOps;
  /** The module URL of the query Worker (./worker/query_worker.ts) that checks a target. */
  queryWorkerUrl: string;
  /** Whether "host:port" is in `--deny-net`; wins over the server's hosts. */
  denied?(target: string): Promise<boolean>;
}

/** The proxy of one server, as its forwarder reaches it. */
export interface McpProxyEndpoint {
  socketPath: string;
  /** What each connection must begin with, hex (./net/proxy.ts `token`). */
  token: string;
}

/** The proxies of a run's MCP servers. */
export interface McpNetwork {
  /**
   * Starts the proxy of server `name` that reaches `hosts` (true: every host not in --deny-net),
   * or finds the one started for the same name and hosts; its endpoint, or why it cannot listen.
   */
  open(name: string, hosts: Scope): { ok: true; endpoint: McpProxyEndpoint } | {
    ok: false;
    message: string;
  };
  /** Stops every proxy and its query Worker. Idempotent. */
  close(): Promise<void>;
}

/** Creates the run's (not yet started) MCP server proxies. */
export function createMcpNetwork(options: McpNetworkOptions): McpNetwork {
  const running: Array<{ proxy: NetProxy; query: ToolHostClient }> = [];
  // One proxy per program and hosts: a program confined again and again (a hook, run at each
  // step) shares the one it got first instead of leaving one behind per run.
  const endpoints = new Map<string, McpProxyEndpoint>();
  let closing: Promise<void> | undefined;
  return {
    open(name, hosts) {
      if (closing !== undefined) return { ok: false, message: "the run is ending" };
      const key = JSON.stringify([name, hosts]);
      const known = endpoints.get(key);
      if (known !== undefined) return { ok: true, endpoint: known };
      const query = new ToolHostClient(() =>
        startWorkerHost({
          workerUrl: options.queryWorkerUrl,
          permissions: netPermissions(hosts),
          toolOptions: { cwd: options.cwd, spillDir: options.spillDir },
        })
      );
      const token = crypto.getRandomValues(new Uint8Array(32));
      const socketPath = join(
        options.spillDir,
        `.moat-mcp-${crypto.randomUUID().slice(0, 8)}.sock`,
      );
      const decide = serverDecisions(name, options);
      const started = startNetProxy({
        socketPath,
        net: options.net,
        token,
        allowed: (target) => decide.allowed(target, query),
        onDecision: ({ target, allowed }) => decide.record(target, allowed),
        refusal: (target) => decide.refusal(target),
      });
      if (!started.ok) {
        void query.close();
        return started;
      }
      running.push({ proxy: started.proxy, query });
      const endpoint = { socketPath, token: tokenHex(token) };
      endpoints.set(key, endpoint);
      return { ok: true, endpoint };
    },
    close() {
      closing ??= Promise.all(
        running.map(async ({ proxy, query }) => {
          await proxy.close();
          await query.close();
        }),
      ).then(() => {});
      return closing;
    },
  };
}

/** The decisions of server `name`'s proxy, reported like bash's (./_net_decisions.ts). */
function serverDecisions(name: string, options: McpNetworkOptions) {
  const granted = new Set<string>();
  const decisions = netDecisions(options);
  return {
    refusal: decisions.refusal,
    allowed: decisions.allowed,
    record(target: string, allowed: boolean) {
      if (allowed) {
        if (granted.has(target)) return;
        remember(granted, target);
      }
      decisions.report({ toolCallId: "", toolName: `mcp:${name}` }, target, allowed);
    },
  };
}
