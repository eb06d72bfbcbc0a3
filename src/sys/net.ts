/**
 * Deno implementation of the sandbox's NetOps: the UNIX and TCP listeners and connections of
 * bash's network proxy (src/sandbox/net/proxy.ts) and of the tool host's forwarder.
 */
import type {
  ConnectFailure,
  ConnectResult,
  ListenResult,
  NetConn,
  NetListener,
  NetOps,
} from "../sandbox/ops.ts";

/** Creates NetOps backed by Deno.listen and Deno.connect. */
export function createDenoNetOps(): NetOps {
  return {
    listenUnix(path) {
      return listen(() => Deno.listen({ transport: "unix", path }), () => {
        try {
          Deno.removeSync(path);
        } catch { /* already gone */ }
      });
    },
    listenTcp(hostname, port) {
      return listen(() => Deno.listen({ transport: "tcp", hostname, port }), () => {});
    },
    async connectTcp(hostname, port, options = {}) {
      try {
        const conn = await Deno.connect({
          hostname,
          port,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        return { ok: true, conn: wrapConn(conn) };
      } catch (e) {
        return { ok: false, failure: failureOf(e), message: messageOf(e) };
      }
    },
    async connectUnix(path): Promise<ConnectResult> {
      try {
        return { ok: true, conn: wrapConn(await Deno.connect({ transport: "unix", path })) };
      } catch (e) {
        return { ok: false, failure: failureOf(e), message: messageOf(e) };
      }
    },
  };
}

function listen(open: () => Deno.Listener, cleanUp: () => void): ListenResult {
  let listener: Deno.Listener;
  try {
    listener = open();
  } catch (e) {
    return { ok: false, message: messageOf(e) };
  }
  let closed = false;
  const wrapped: NetListener = {
    async accept() {
      if (closed) return null;
      try {
        return wrapConn(await listener.accept());
      } catch {
        // Closed under a pending accept (BadResource / Interrupted), or the listener failed.
        return null;
      }
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        listener.close();
      } catch { /* already closed */ }
      cleanUp();
    },
  };
  const addr = listener.addr;
  return { ok: true, listener: wrapped, port: addr.transport === "tcp" ? addr.port : 0 };
}

function wrapConn(conn: Deno.Conn): NetConn {
  let closed = false;
  return {
    read: (p) => conn.read(p),
    write: (p) => conn.write(p),
    async closeWrite() {
      try {
        await conn.closeWrite();
      } catch { /* the peer is gone or the connection is closed */ }
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        conn.close();
      } catch { /* already closed */ }
    },
  };
}

function failureOf(e: unknown): ConnectFailure {
  if (e instanceof Deno.errors.ConnectionRefused) return "refused";
  if (e instanceof Deno.errors.NetworkUnreachable) return "unreachable";
  if (e instanceof Deno.errors.TimedOut) return "timed_out";
  return "other";
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
