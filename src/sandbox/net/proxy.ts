/**
 * bash's network proxy, in moat's main process (which has the real network). It listens on a UNIX
 * socket that the tool host forwards 127.0.0.1:PORT of its own network namespace to, and speaks
 * both SOCKS5 and HTTP proxy requests (told apart by the first byte). Every target "host:port" is
 * decided by `allowed` (Deno's permission engine in a Worker whose net permissions are the
 * grants) before any connection is made; refusals name the flag that would allow them.
 */
import { notGrantedReason } from "../../policy/mod.ts";
import type { ConnectFailure, NetConn, NetOps } from "../ops.ts";
import { serveConnections, type ServeScope, splice, writeAll } from "./_splice.ts";
import { binaryBytes, binaryText, BufferedInput } from "./_buffered_input.ts";

/** A decision of the proxy about one connection. */
export interface NetProxyDecision {
  /** "host:port" as Deno's net permission names it (IPv6 in brackets). */
  target: string;
  allowed: boolean;
}

/** Options of `startNetProxy`. */
export interface NetProxyOptions {
  /** The UNIX socket file to listen on (it must not exist yet). */
  socketPath: string;
  net: NetOps;
  /** Whether "host:port" may be reached: true only when Deno says "granted". Must not reject. */
  allowed(target: string): Promise<boolean>;
  /** Receives each decision before the connection is made or refused. Must not throw. */
  onDecision?(decision: NetProxyDecision): void;
  /** Longest wait for an upstream connection (default 30 s). */
  connectTimeoutMs?: number;
  /** Why "host:port" is refused, naming the flag to add (default: `--allow-net=host:port`). */
  refusal?(target: string): string;
  /** Receives each allowed connection whose host did not answer. Must not throw. */
  onUnreachable?(failure: { target: string; message: string }): void;
  /**
   * Bytes every connection must begin with (its forwarder sends them), else it is closed: the
   * socket file may be visible to others in the sandbox (bash sees the spill directory).
   */
  token?: Uint8Array;
}

/** A running proxy. */
export interface NetProxy {
  readonly socketPath: string;
  /** Stops listening, closes every connection and waits for them. Idempotent. */
  close(): Promise<void>;
}

/** A proxy, or why it could not listen. */
export type NetProxyResult = { ok: true; proxy: NetProxy } | { ok: false; message: string };

/** A normalised target: `host` as a URL has it (IPv6 in brackets), `port` 1–65535. */
export interface NetTarget {
  host: string;
  port: number;
}

const SOCKS_VERSION = 5;
const SOCKS = {
  succeeded: 0,
  generalFailure: 1,
  notAllowed: 2,
  networkUnreachable: 3,
  hostUnreachable: 4,
  refused: 5,
  ttlExpired: 6,
  commandNotSupported: 7,
  addressTypeNotSupported: 8,
} as const;
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_DRAIN_BYTES = 1024 * 1024;
const HEAD_END = Uint8Array.of(13, 10, 13, 10);
/** Hop-by-hop headers a proxy must not forward (RFC 9110 7.6.1), plus Host (set from the URL). */
const DROPPED_HEADERS = new Set([
  "host",
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "upgrade",
]);

/** Starts the proxy on `options.socketPath`. */
export function startNetProxy(options: NetProxyOptions): NetProxyResult {
  const listening = options.net.listenUnix(options.socketPath);
  if (!listening.ok) {
    return {
      ok: false,
      message: `cannot listen on "${options.socketPath}": ${listening.message}`,
    };
  }
  const server = serveConnections(listening.listener, async (client, scope) => {
    const open: Open = (target) => openUpstream(target, options, scope);
    const input = new BufferedInput(client);
    const token = options.token ?? new Uint8Array(0);
    if (!await input.fill(token.length) || !sameBytes(input.take(token.length), token)) return;
    if (!await input.fill(1)) return;
    if (input.bytes[0] === SOCKS_VERSION) await serveSocks(client, input, open);
    else await serveHttp(client, input, open);
  });
  return { ok: true, proxy: { socketPath: options.socketPath, close: () => server.close() } };
}

/** Compares in time independent of where the bytes differ. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/** `target` as Deno's net permission descriptor names it: `host:port`. */
export function targetLabel(target: NetTarget): string {
  return `${target.host}:${target.port}`;
}

/**
 * Normalises a host (name, IPv4, IPv6 with or without brackets) and port the way a URL does, so
 * that the decision and the connection use the same name; undefined when it is not a host.
 */
export function normalizeTarget(host: string, port: number): NetTarget | undefined {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "" || /[\s/\\?#@[\]%]/.test(bare)) return undefined;
  try {
    const url = new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}/`);
    return { host: url.hostname, port };
  } catch {
    return undefined;
  }
}

type Opened =
  | { kind: "connected"; conn: NetConn }
  | { kind: "denied"; reason: string }
  | { kind: "failed"; failure: ConnectFailure; message: string };

type Open = (target: NetTarget) => Promise<Opened>;

async function openUpstream(
  target: NetTarget,
  options: NetProxyOptions,
  scope: ServeScope,
): Promise<Opened> {
  const label = targetLabel(target);
  const allowed = await options.allowed(label);
  try {
    options.onDecision?.({ target: label, allowed });
  } catch { /* a sink must not change the decision */ }
  if (!allowed) {
    const reason = options.refusal?.(label) ?? notGrantedReason({ access: "net", host: label });
    return { kind: "denied", reason };
  }
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.connectTimeoutMs ?? 30_000);
  try {
    const hostname = target.host.startsWith("[") ? target.host.slice(1, -1) : target.host;
    const result = await options.net.connectTcp(hostname, target.port, {
      signal: AbortSignal.any([scope.signal, timeout.signal]),
    });
    if (!result.ok) {
      const failure = timeout.signal.aborted ? "timed_out" : result.failure;
      try {
        options.onUnreachable?.({ target: label, message: result.message });
      } catch { /* a sink must not change the answer */ }
      return { kind: "failed", failure, message: result.message };
    }
    scope.adopt(result.conn);
    return { kind: "connected", conn: result.conn };
  } finally {
    clearTimeout(timer);
  }
}

async function serveSocks(client: NetConn, input: BufferedInput, open: Open): Promise<void> {
  if (!await input.fill(2)) return;
  const methods = input.bytes[1] ?? 0;
  if (!await input.fill(2 + methods)) return;
  const offered = input.take(2 + methods).subarray(2);
  // Only "no authentication": the proxy is reachable from the sandbox alone.
  if (!offered.includes(0)) return await writeAll(client, Uint8Array.of(SOCKS_VERSION, 0xff));
  await writeAll(client, Uint8Array.of(SOCKS_VERSION, 0));
  if (!await input.fill(5)) return;
  const [version, command, , addressType, nameLength = 0] = input.bytes;
  const reply = (code: number) =>
    writeAll(client, Uint8Array.of(SOCKS_VERSION, code, 0, 1, 0, 0, 0, 0, 0, 0));
  if (version !== SOCKS_VERSION) return await reply(SOCKS.generalFailure);
  const addressBytes = addressType === 1
    ? 4
    : addressType === 4
    ? 16
    : addressType === 3
    ? 1 + nameLength
    : undefined;
  if (addressBytes === undefined) return await reply(SOCKS.addressTypeNotSupported);
  if (!await input.fill(4 + addressBytes + 2)) return;
  const request = input.take(4 + addressBytes + 2);
  const address = request.subarray(4, 4 + addressBytes);
  const port = (request[4 + addressBytes] ?? 0) * 256 + (request[5 + addressBytes] ?? 0);
  if (command !== 1) return await reply(SOCKS.commandNotSupported);
  const host = addressType === 1
    ? [...address].join(".")
    : addressType === 4
    ? [0, 2, 4, 6, 8, 10, 12, 14].map((i) =>
      ((address[i] ?? 0) * 256 + (address[i + 1] ?? 0))
        .toString(16)
    ).join(":")
    : new TextDecoder().decode(address.subarray(1));
  const target = normalizeTarget(host, port);
  if (target === undefined) return await reply(SOCKS.hostUnreachable);
  const opened = await open(target);
  switch (opened.kind) {
    case "denied":
      return await reply(SOCKS.notAllowed);
    case "failed":
      return await reply(socksFailure(opened.failure));
    case "connected":
      await reply(SOCKS.succeeded);
      return await splice(client, opened.conn, input.rest());
    default: {
      const never: never = opened;
      return never;
    }
  }
}

function socksFailure(failure: ConnectFailure): number {
  switch (failure) {
    case "refused":
      return SOCKS.refused;
    case "unreachable":
      return SOCKS.networkUnreachable;
    case "timed_out":
      return SOCKS.ttlExpired;
    case "other":
      return SOCKS.hostUnreachable;
    default: {
      const never: never = failure;
      return never;
    }
  }
}

async function serveHttp(client: NetConn, input: BufferedInput, open: Open): Promise<void> {
  const end = await input.until(HEAD_END, MAX_HEAD_BYTES);
  if (end === undefined) {
    if (input.bytes.length >= MAX_HEAD_BYTES) {
      await respond(client, 431, "Request Header Fields Too Large", "the request head is too long");
    }
    return;
  }
  const lines = binaryText(input.take(end)).slice(0, -4).split("\r\n");
  const [method, target, version, ...extra] = (lines[0] ?? "").split(" ");
  if (
    method === undefined || target === undefined || extra.length > 0 ||
    !/^HTTP\/1\.[01]$/.test(version ?? "")
  ) {
    return await respond(client, 400, "Bad Request", "malformed request line");
  }
  if (method === "CONNECT") {
    const m = /^(\[[^\]]*\]|[^:]*):(\d{1,5})$/.exec(target);
    const parsed = m === null ? undefined : normalizeTarget(m[1] ?? "", Number(m[2]));
    if (parsed === undefined) {
      return await respond(client, 400, "Bad Request", `"${target}" is not a host:port`);
    }
    const opened = await open(parsed);
    if (opened.kind !== "connected") return await refuse(client, opened, parsed);
    await writeAll(client, binaryBytes(`${version} 200 Connection established\r\n\r\n`));
    return await splice(client, opened.conn, input.rest());
  }
  let url: URL | undefined;
  try {
    url = new URL(target);
  } catch {
    url = undefined;
  }
  if (url === undefined || url.protocol !== "http:") {
    return await respond(
      client,
      400,
      "Bad Request",
      `this proxy fetches absolute http:// URLs and tunnels CONNECT host:port (for https); ` +
        `"${target.slice(0, 200)}" is neither`,
    );
  }
  const parsed = normalizeTarget(url.hostname, url.port === "" ? 80 : Number(url.port));
  if (parsed === undefined) {
    return await respond(client, 400, "Bad Request", `"${url.host}" is not a host`);
  }
  const headers = forwardedHeaders(lines.slice(1));
  if (headers === undefined) {
    return await respond(client, 400, "Bad Request", "folded header lines are not supported");
  }
  const opened = await open(parsed);
  if (opened.kind !== "connected") return await refuse(client, opened, parsed);
  // One request per connection (Connection: close): a later request on a kept-alive client
  // connection could name another host, and must be decided on its own.
  const head = [
    `${method} ${url.pathname}${url.search} ${version}`,
    `Host: ${url.host}`,
    ...headers,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  const rest = input.rest();
  const first = new Uint8Array(head.length + rest.length);
  first.set(binaryBytes(head));
  first.set(rest, head.length);
  await splice(client, opened.conn, first);
}

/** The header lines to forward, without hop-by-hop ones; undefined for obsolete line folding. */
function forwardedHeaders(lines: string[]): string[] | undefined {
  if (lines.some((l) => l.startsWith(" ") || l.startsWith("\t"))) return undefined;
  const named = lines.map((line) => ({ line, name: line.split(":", 1)[0]?.trim().toLowerCase() }));
  const listed = new Set(
    named.filter((h) => h.name === "connection" || h.name === "proxy-connection")
      .flatMap((h) => h.line.slice(h.line.indexOf(":") + 1).split(","))
      .map((token) => token.trim().toLowerCase()),
  );
  return named.filter((h) =>
    h.name !== undefined && h.name !== "" && !DROPPED_HEADERS.has(h.name) && !listed.has(h.name)
  ).map((h) => h.line);
}

async function refuse(
  client: NetConn,
  opened: Exclude<Opened, { kind: "connected" }>,
  target: NetTarget,
): Promise<void> {
  if (opened.kind === "denied") {
    // The flag in the status line too: clients show it for a refused tunnel (https), not the body.
    const phrase = `Forbidden by moat (add --allow-net=${targetLabel(target)})`;
    return await respond(client, 403, phrase, `moat: ${opened.reason}`);
  }
  // Not a refusal: the grants allow it, and the host itself did not answer.
  await respond(
    client,
    502,
    "Bad Gateway (granted by moat, but the host did not answer)",
    `moat: network access to "${targetLabel(target)}" is granted, but the host did not ` +
      `answer: ${opened.message}`,
  );
}

async function respond(client: NetConn, status: number, text: string, body: string) {
  const bytes = new TextEncoder().encode(body + "\n");
  const head = `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`;
  await writeAll(client, binaryBytes(head));
  await writeAll(client, bytes);
  await client.closeWrite();
  // Read what the client still sends (a request body) until it closes: closing with unread
  // bytes would reset the connection, and the client could lose the answer.
  const sink = new Uint8Array(16 * 1024);
  for (let total = 0; total < MAX_DRAIN_BYTES;) {
    const n = await client.read(sink);
    if (n === null) return;
    total += n;
  }
}
