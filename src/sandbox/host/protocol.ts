/**
 * The tool host's wire protocol: JSON lines over the host's stdin/stdout (bwrap mode) or
 * postMessage (Worker mode). The same messages travel main → host → Worker and back.
 */
import type { Protection } from "../../policy/mod.ts";
import type { HiddenDir } from "../bwrap/hide_view.ts";
import type { ToolOutput, ToolUpdate } from "../../tools/mod.ts";

/** The hidden sub-command main.ts dispatches to the tool host (./main.ts). */
export const TOOL_HOST_COMMAND = "__tool-host";

/**
 * The option of `__tool-host` that runs an MCP server behind a network forwarder instead of the
 * tool host: `__tool-host --mcp-forward -- COMMAND ARGS…` (src/sandbox/net/mcp_forward.ts).
 */
export const MCP_FORWARD_OPTION = "--mcp-forward";

/** The variable that gives the forwarder its `McpForwardConfig` (JSON); the server never sees it. */
export const MCP_FORWARD_ENV = "MOAT_MCP_FORWARD";

/** What an MCP server's forwarder needs: its proxy's socket and token, and the server's env. */
export interface McpForwardConfig {
  socketPath: string;
  /** The bytes each forwarded connection begins with (the proxy's `token`), hex. */
  token: string;
  /** The server's complete environment (the proxy variables are added to it). */
  env: Record<string, string>;
}

/** The JSON-serialisable options a Worker rebuilds the built-in tools from. */
export interface WireToolOptions {
  cwd: string;
  spillDir: string;
  env?: Record<string, string>;
  /** The home directory `~` expands to (src/policy/home.ts), resolved once by the main process. */
  home?: string;
  bashTimeoutSec?: number;
  bashMaxTimeoutSec?: number;
  bashCommandPrefix?: string[];
  /**
   * Directories of bash's view rebuilt at each call without their `--ignore-read` entries: their
   * arguments (bwrap/hide_view.ts) go into `bashCommandPrefix` at index `at`.
   */
  bashHidden?: { dirs: HiddenDir[]; at: number };
  /** The placeholders this host's view mounts over (bwrap): the tools hide the unused ones. */
  placeholders?: string[];
  /** What the Worker's file operations enforce beyond Deno's permissions (worker/_guarded_fs.ts). */
  guard?: WireFsGuard;
}

/** Deny lists for tree walks, protected paths, and whether opens are re-checked (no OS sandbox). */
export interface WireFsGuard {
  denyRead: string[];
  denyWrite: string[];
  /** `--ignore-read` paths: missing to every tool (worker/_guarded_fs.ts). */
  ignoreRead?: string[];
  /** Identities of the ignored files at the start ("dev:ino"): hidden under another name too. */
  ignoredIds?: string[];
  /** Paths no write may touch unless carved out (src/policy/protected.ts). */
  protection?: Protection;
  /** Identities of the denied files at the start ("dev:ino"), by access. */
  deniedIds?: { read: string[]; write: string[] };
  /**
   * Re-resolve every opened path after the open (set when tools run without bubblewrap). False:
   * bubblewrap's view confines every open, so a walk's files (grep) are opened without the checks
   * that only guard against reaching outside it (worker/tool_fs.ts).
   */
  recheckOpens: boolean;
}

/** What the host needs to start its Worker. */
export interface HostConfig {
  /** Module URL of the Worker (src/sandbox/worker/worker.ts unless a test substitutes one). */
  workerUrl: string;
  /** Module URL of grep's helper Worker (default src/sandbox/worker/grep_worker.ts). */
  helperUrl?: string;
  /** Deno permissions of the Worker, derived from the grants. */
  permissions: Deno.PermissionOptionsObject;
  toolOptions: WireToolOptions;
  /**
   * bwrap mode under a scoped `--allow-net`: the host listens on 127.0.0.1 (its own network
   * namespace), forwards to the main process's proxy at `socketPath`, and gives bash the proxy
   * variables (src/sandbox/net/forward.ts); each connection begins with `token` (hex). With
   * `loopbackDirect`, bash's clients reach loopback (the namespace's own) without the proxy.
   */
  netProxy?: { socketPath: string; token?: string; loopbackDirect?: boolean };
  /**
   * bwrap mode: the host's private /tmp, which bash calls share and the run discards, and the
   * granted paths mounted inside it; the host notes a bash call that wrote there.
   */
  privateTmp?: { path: string; mounted: string[] };
}

/** A permission state as Deno reports it; anything but "granted" means not granted. */
export type PermissionStateName = "granted" | "prompt" | "denied";

/** Messages from the main process to the host (and from the host to its Worker). */
export type MainToHost =
  | { type: "init"; config: HostConfig }
  | { type: "call"; id: number; name: string; args: unknown; toolCallId: string }
  | { type: "abort"; id: number }
  | { type: "query"; id: number; descriptors: Deno.PermissionDescriptor[] }
  | { type: "shutdown" };

/** Whether `msg` gives a host work (a call or a query): a host never given any closes at once. */
export function startsWork(msg: MainToHost): boolean {
  return msg.type === "call" || msg.type === "query";
}

/** Messages from the host (or Worker) to the main process. */
export type HostToMain =
  | { type: "ready" }
  | { type: "progress"; id: number; update: ToolUpdate }
  | { type: "result"; id: number; output: ToolOutput }
  | { type: "error"; id: number; message: string }
  | { type: "query_result"; id: number; states: PermissionStateName[] }
  | { type: "shutdown_done" }
  | { type: "fatal"; message: string };

/** Most characters of a progress update's text on the wire (its end is kept). */
export const MAX_UPDATE_TEXT_CHARS = 8192;
/** Most characters of a progress update's `details` as JSON (larger details are dropped). */
export const MAX_UPDATE_DETAILS_CHARS = 2048;

/**
 * A progress update as it may cross the Worker → host → main channel: the end of its text, and
 * its details only when they are small JSON. Whatever a tool reports, one update stays small.
 */
export function boundedUpdate(update: ToolUpdate): ToolUpdate {
  let text = typeof update.text === "string" ? update.text : String(update.text);
  if (text.length > MAX_UPDATE_TEXT_CHARS) {
    text = text.slice(-MAX_UPDATE_TEXT_CHARS);
    // Not half of a surrogate pair at the start.
    if (/^[\uDC00-\uDFFF]/.test(text)) text = text.slice(1);
  }
  const bounded: ToolUpdate = { text };
  if (update.details !== undefined) {
    let json: string | undefined;
    try {
      json = JSON.stringify(update.details);
    } catch {
      // Details that are not JSON (a BigInt, a cycle) do not cross the channel.
    }
    if (json !== undefined && json.length <= MAX_UPDATE_DETAILS_CHARS) {
      bounded.details = JSON.parse(json);
    }
  }
  return bounded;
}

/** Splits a byte stream into lines (without the newline); the last partial line is kept. */
export async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() !== "") yield line;
    }
  }
  if (buffered.trim() !== "") yield buffered;
}

/**
 * Waits until one of `promises` settles or `ms` have passed; true when one settled in time. The
 * timer is cleared either way (shutdown grace periods of the host and its Worker).
 */
export async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([...promises.map((p) => p.then(() => true, () => true)), expired]);
  } finally {
    clearTimeout(timer);
  }
}
