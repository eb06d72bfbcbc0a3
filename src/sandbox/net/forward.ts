/**
 * The tool host's half of bash's network proxy: a TCP listener on 127.0.0.1 inside the host's own
 * network namespace (which bash calls share) that forwards each connection to the proxy's UNIX
 * socket in the main process, plus the proxy variables bash gets.
 */
import type { NetOps } from "../ops.ts";
import { type ConnectionServer, serveConnections, splice } from "./_splice.ts";

/** A running forwarder. */
export interface NetForwarder {
  /** The TCP port on 127.0.0.1 of the host's network namespace. */
  port: number;
  /** Stops listening and closes every forwarded connection. */
  close(): Promise<void>;
}

/** A forwarder, or why it could not start. */
export type ForwarderResult = { ok: true; forwarder: NetForwarder } | {
  ok: false;
  message: string;
};

/**
 * Listens on 127.0.0.1 (a free port) and forwards every connection to `socketPath`, each begun
 * with `options.token` (the proxy's `token`).
 */
export function startNetForwarder(
  net: NetOps,
  socketPath: string,
  options: { token?: Uint8Array } = {},
): ForwarderResult {
  const listening = net.listenTcp("127.0.0.1", 0);
  if (!listening.ok) return { ok: false, message: listening.message };
  const server: ConnectionServer = serveConnections(listening.listener, async (conn, scope) => {
    const upstream = await net.connectUnix(socketPath);
    // The proxy is gone (moat is exiting): the client sees its connection closed.
    if (!upstream.ok) return;
    scope.adopt(upstream.conn);
    await splice(conn, upstream.conn, options.token);
  });
  return { ok: true, forwarder: { port: listening.port, close: () => server.close() } };
}

/** A proxy token as hex text (for JSON and the environment). */
export function tokenHex(token: Uint8Array): string {
  return [...token].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The bytes of a token made by `tokenHex`. */
export function hexToken(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

/** The loopback names and addresses NO_PROXY lists when loopback is reached directly. */
export const LOOPBACK_NO_PROXY = "localhost,127.0.0.1,::1";

/**
 * The environment that sends bash's HTTP(S) clients and SOCKS-aware tools through the proxy on
 * `port`. NO_PROXY is empty (127.0.0.1 then means the machine's loopback, reached through the
 * proxy) unless `loopbackDirect`: then loopback is the network namespace's own, where the run's
 * calls and background jobs reach each other and nothing else listens but the forwarder.
 */
export function proxyEnvironment(
  port: number,
  options: { loopbackDirect?: boolean } = {},
): Record<string, string> {
  const http = `http://127.0.0.1:${port}`;
  const noProxy = options.loopbackDirect === true ? LOOPBACK_NO_PROXY : "";
  const socks = `socks5h://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
}
