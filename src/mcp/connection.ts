/**
 * One MCP server's life: connect and list its tools within the startup timeout, follow
 * `notifications/tools/list_changed`, call tools (cancellation, timeout, progress), restart once
 * after a crash, and close. Nothing here throws: failures become states, warnings and results.
 */
import { Client } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" export maps types to "*.d.ts", so "x.js" would type as any: name the types.
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  McpError,
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  Progress,
  Prompt as McpPrompt,
  ServerCapabilities,
  Tool as McpTool,
} from "@modelcontextprotocol/sdk/types";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport";
import type { ToolOutput } from "../agent/tool.ts";
import type { Clock } from "../agent/types.ts";
import type { McpServerConfig, McpStdioServer } from "./config.ts";
import type { McpProcessOps, McpStdioCommand } from "./ops.ts";
import { createStdioTransport } from "./stdio_transport.ts";
import { type McpCall, resultToOutput } from "./tools.ts";
import { listAll, listPrompts } from "./_listing.ts";

/** Where a server is: connecting, serving, crashed once (restarts on the next call), or out. */
export type McpServerState = "starting" | "ready" | "crashed" | "failed";

/** What a connection needs from its owner. */
export interface ConnectionOptions {
  processOps: McpProcessOps;
  stdioCommand: (server: McpStdioServer) => McpStdioCommand;
  fetch?: FetchLike;
  callTimeoutMs: number;
  exitGraceMs?: number;
  clientInfo: { name: string; version: string };
  onWarning: (message: string) => void;
  /** The startup timeout's timer (default: the global timers). */
  clock?: Pick<Clock, "setTimeout" | "clearTimeout">;
  /** The tool or prompt list or the state changed (ready, refreshed, restarted, failed). */
  onChange: () => void;
  /** What would fix a server that could not start (a grant, a setting), given why; or nothing. */
  explainFailure?: (server: McpServerConfig, error: string) => string | undefined;
}

/** One server's connection. */
export interface ServerConnection {
  readonly config: McpServerConfig;
  state(): McpServerState;
  error(): string | undefined;
  /** The server's tools as last listed (kept while it restarts; none once failed). */
  tools(): McpTool[];
  /** What the server declared it offers (resources, prompts); undefined unless ready. */
  capabilities(): ServerCapabilities | undefined;
  /** The server's prompts as listed when it became ready (none without the capability). */
  prompts(): McpPrompt[];
  /** Connects and lists the tools; resolves when ready or failed, never rejects. */
  start(): Promise<void>;
  call: McpCall;
  /**
   * Runs one request (`what`, e.g. `read of "uri"`, names it in errors) on the live client,
   * restarting a crashed server first. Never rejects: failures are `{ok: false, error}`.
   */
  request<T>(
    what: string,
    run: (client: Client, options: RequestOptions) => Promise<T>,
    signal: AbortSignal,
  ): Promise<{ ok: true; value: T } | { ok: false; error: string }>;
  /** Closes the transport (a stdio server's process group is killed); never rejects. */
  close(): Promise<void>;
}

interface Live {
  client: Client;
  transport: Transport & { endReason?(): string | undefined; abandon?(): Promise<void> };
  adopted: boolean;
  changedEarly: boolean;
}

type Opened =
  | { ok: true; live: Live; tools: McpTool[]; prompts: McpPrompt[] }
  | { ok: false; error: string };

/** Creates the connection of one configured server (nothing starts before `start()`). */
export function createConnection(
  config: McpServerConfig,
  options: ConnectionOptions,
): ServerConnection {
  const name = config.name;
  const startupMs = config.startupTimeoutSec * 1000;
  const lifetime = new AbortController();
  let state: McpServerState = "starting";
  let error: string | undefined;
  let tools: McpTool[] = [];
  let prompts: McpPrompt[] = [];
  let live: Live | undefined;
  let crashes = 0;
  let started: Promise<void> | undefined;
  let restarting: Promise<void> | undefined;

  function explained(reason: string): string {
    const hint = options.explainFailure?.(config, reason);
    return hint === undefined ? reason : `${reason}; ${hint}`;
  }

  function makeTransport(): Live["transport"] {
    if (config.type === "stdio") {
      return createStdioTransport(options.processOps, options.stdioCommand(config), {
        ...(options.exitGraceMs === undefined ? {} : { exitGraceMs: options.exitGraceMs }),
      });
    }
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
  }

  async function open(): Promise<Opened> {
    const transport = makeTransport();
    const client = new Client(options.clientInfo, { capabilities: {} });
    const attempt: Live = { client, transport, adopted: false, changedEarly: false };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (attempt.adopted) void refresh(attempt);
      else attempt.changedEarly = true;
    });
    // Prompts are listed once the tools are: a change before that is in the listing.
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      if (attempt.adopted) void refreshPrompts(attempt);
    });
    const timeout = new AbortController();
    const clock = options.clock ?? globalThis;
    const timer = clock.setTimeout(() => timeout.abort(), startupMs);
    const signal = AbortSignal.any([timeout.signal, lifetime.signal]);
    try {
      await client.connect(transport, { signal, timeout: startupMs });
      const listed = await listAll(client, { signal, timeout: startupMs });
      const offered = client.getServerCapabilities()?.prompts === undefined
        ? []
        : await listPrompts(client, { signal, timeout: startupMs }).catch((e) => {
          options.onWarning(`MCP server "${name}" could not list its prompts: ${messageOf(e)}`);
          return [];
        });
      return { ok: true, live: attempt, tools: listed, prompts: offered };
    } catch (e) {
      await (transport.abandon?.() ?? transport.close()).catch(() => {});
      if (timeout.signal.aborted) {
        return {
          ok: false,
          error: `no answer within ${config.startupTimeoutSec} s (raise "startupTimeoutSec" ` +
            `if it is only slow)`,
        };
      }
      return { ok: false, error: transport.endReason?.() ?? messageOf(e) };
    } finally {
      clock.clearTimeout(timer as number);
    }
  }

  /** Makes an opened connection the current one. */
  function adopt(opened: Extract<Opened, { ok: true }>): void {
    live = opened.live;
    tools = opened.tools;
    prompts = opened.prompts;
    state = "ready";
    const current = opened.live;
    current.adopted = true;
    current.client.onclose = () => onClosed(current);
    if (current.changedEarly) void refresh(current);
  }

  function onClosed(closed: Live): void {
    if (lifetime.signal.aborted || live !== closed) return;
    const reason = closed.transport.endReason?.() ?? "the connection closed";
    crashes++;
    if (crashes >= 2) {
      state = "failed";
      error = `crashed again (${reason}); it stays stopped`;
      options.onWarning(`MCP server "${name}" ${error}; its tools are unavailable`);
      live = undefined;
      tools = [];
      prompts = [];
      options.onChange();
    } else {
      state = "crashed";
      error = `crashed (${reason}); it restarts on the next call`;
      options.onWarning(`MCP server "${name}" ${error}`);
    }
  }

  async function refresh(current: Live): Promise<void> {
    try {
      const listed = await listAll(current.client, { timeout: startupMs });
      if (live !== current) return;
      tools = listed;
      options.onChange();
    } catch (e) {
      if (live !== current || lifetime.signal.aborted) return;
      options.onWarning(
        `MCP server "${name}" announced changed tools, but listing them failed: ${
          messageOf(e)
        }; the previous list stays`,
      );
    }
  }

  async function refreshPrompts(current: Live): Promise<void> {
    try {
      const listed = await listPrompts(current.client, { timeout: startupMs });
      if (live !== current) return;
      prompts = listed;
      options.onChange();
    } catch (e) {
      if (live !== current || lifetime.signal.aborted) return;
      options.onWarning(
        `MCP server "${name}" announced changed prompts, but listing them failed: ${
          messageOf(e)
        }; the previous list stays`,
      );
    }
  }

  function restart(): Promise<void> {
    restarting ??= (async () => {
      state = "starting";
      const opened = await open();
      restarting = undefined;
      if (lifetime.signal.aborted) {
        if (opened.ok) await opened.live.transport.close();
        return;
      }
      if (opened.ok) {
        adopt(opened);
        error = undefined;
      } else {
        state = "failed";
        error = `crashed, and the restart failed: ${explained(opened.error)}`;
        tools = [];
        prompts = [];
        options.onWarning(`MCP server "${name}" ${error}`);
      }
      options.onChange();
    })();
    return restarting;
  }

  async function request<T>(
    what: string,
    run: (client: Client, requestOptions: RequestOptions) => Promise<T>,
    signal: AbortSignal,
  ): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
    const fail = (message: string) => ({ ok: false as const, error: message });
    const cancelled = `The ${what} of MCP server "${name}" was cancelled`;
    if (started === undefined) return fail(`MCP server "${name}" was never started`);
    await started;
    if (state === "crashed") await restart();
    else if (restarting !== undefined) await restarting;
    const current = live;
    if (state === "failed" || current === undefined) {
      return fail(`MCP server "${name}" is not available: ${error ?? "it was closed"}`);
    }
    if (signal.aborted) return fail(cancelled);
    try {
      return {
        ok: true,
        value: await run(current.client, { signal, timeout: options.callTimeoutMs }),
      };
    } catch (e) {
      if (signal.aborted) return fail(cancelled);
      if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
        return fail(
          `MCP server "${name}" did not answer the ${what} within ` +
            `${options.callTimeoutMs / 1000} s; it was cancelled`,
        );
      }
      if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) {
        const reason = current.transport.endReason?.() ?? "the connection closed";
        // onClosed ran before this rejection and has moved the state on (TS cannot see it).
        return fail(
          `MCP server "${name}" crashed during the ${what} (${reason}); ` +
            ((state as McpServerState) === "failed"
              ? "it crashed before and stays stopped"
              : "it restarts on the next call"),
        );
      }
      if (e instanceof McpError) {
        return fail(`MCP server "${name}" refused the ${what}: ${e.message}`);
      }
      return fail(`The ${what} of MCP server "${name}" failed: ${messageOf(e)}`);
    }
  }

  async function call(
    tool: string,
    args: unknown,
    signal: AbortSignal,
    onUpdate: Parameters<McpCall>[3],
  ): Promise<ToolOutput> {
    const done = await request(
      `call to "${tool}"`,
      (client, requestOptions) =>
        client.callTool(
          {
            name: tool,
            ...(typeof args === "object" && args !== null
              ? { arguments: args as Record<string, unknown> }
              : {}),
          },
          undefined,
          {
            ...requestOptions,
            onprogress: (p: Progress) => onUpdate({ text: progressText(p), details: p }),
          },
        ),
      signal,
    );
    return done.ok ? resultToOutput(done.value) : { isError: true, output: done.error };
  }

  return {
    config,
    state: () => state,
    error: () => error,
    tools: () => tools,
    // A crashed server restarts on the next request: what it offered stays offered meanwhile.
    capabilities: () => state === "failed" ? undefined : live?.client.getServerCapabilities(),
    prompts: () => prompts,
    start() {
      started ??= (async () => {
        const opened = await open();
        if (lifetime.signal.aborted) {
          if (opened.ok) await opened.live.transport.close();
          state = "failed";
          error = "closed before it was ready";
          return;
        }
        if (opened.ok) adopt(opened);
        else {
          state = "failed";
          error = `failed to start: ${explained(opened.error)}`;
          options.onWarning(`MCP server "${name}" ${error}; its tools are unavailable`);
        }
        options.onChange();
      })();
      return started;
    },
    call,
    request,
    async close() {
      lifetime.abort();
      await Promise.allSettled([started, restarting]);
      const current = live;
      live = undefined;
      if (current !== undefined) await current.transport.close().catch(() => {});
    },
  };
}

function progressText(p: Progress): string {
  const total = p.total === undefined ? "" : `/${p.total}`;
  return `Progress ${p.progress}${total}${p.message === undefined ? "" : `: ${p.message}`}`;
}

function messageOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  // fetch's "fetch failed" says why only in its cause (connection refused, DNS, TLS).
  const cause = e.cause instanceof Error ? e.cause.message : undefined;
  return cause === undefined || e.message.includes(cause) ? e.message : `${e.message}: ${cause}`;
}
