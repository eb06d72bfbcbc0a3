/**
 * Byte plumbing shared by bash's network proxy (main process) and the tool host's forwarder:
 * copying two connections into each other with half-closes, and an accept loop whose `close()`
 * ends every connection it served and waits for their handlers.
 */
import type { NetConn, NetListener } from "../ops.ts";

const CHUNK_BYTES = 64 * 1024;

/** Writes all of `bytes` to `conn` (a write may take only part). Rejects when the peer is gone. */
export async function writeAll(conn: NetConn, bytes: Uint8Array): Promise<void> {
  let rest = bytes;
  while (rest.length > 0) {
    const n = await conn.write(rest);
    rest = rest.subarray(n);
  }
}

async function pump(from: NetConn, to: NetConn, first: Uint8Array): Promise<void> {
  if (first.length > 0) await writeAll(to, first);
  const buffer = new Uint8Array(CHUNK_BYTES);
  for (;;) {
    const n = await from.read(buffer);
    if (n === null) break;
    await writeAll(to, buffer.subarray(0, n));
  }
  // A half-close travels on (a client that sent its request and waits for the answer).
  await to.closeWrite();
}

/**
 * Copies `a` to `b` and `b` to `a` until both directions have ended, or one fails (then both are
 * closed at once, which ends the other direction). `aFirst` are bytes already read from `a`
 * that go to `b` first. Both connections are closed when it resolves; never rejects.
 */
export async function splice(
  a: NetConn,
  b: NetConn,
  aFirst: Uint8Array = new Uint8Array(),
): Promise<void> {
  const fail = () => {
    a.close();
    b.close();
  };
  await Promise.all([pump(a, b, aFirst).catch(fail), pump(b, a, new Uint8Array()).catch(fail)]);
  a.close();
  b.close();
}

/** What a connection handler gets besides its connection. */
export interface ServeScope {
  /** Aborted when the server closes (pass it to outgoing connects). */
  signal: AbortSignal;
  /** Registers another connection of this handler (closed with the server, or when it ends). */
  adopt(conn: NetConn): void;
}

/** A running accept loop. */
export interface ConnectionServer {
  /** Stops accepting, closes every open connection and waits for all handlers. Idempotent. */
  close(): Promise<void>;
}

/**
 * Accepts connections from `listener` and runs `serve` on each. A handler's connections (the
 * accepted one and those it adopts) are closed when it settles; its rejection is ignored.
 */
export function serveConnections(
  listener: NetListener,
  serve: (conn: NetConn, scope: ServeScope) => Promise<void>,
): ConnectionServer {
  const controller = new AbortController();
  const open = new Set<NetConn>();
  const handlers = new Set<Promise<void>>();
  const run = (conn: NetConn) => {
    const mine = [conn];
    open.add(conn);
    const scope: ServeScope = {
      signal: controller.signal,
      adopt(other) {
        mine.push(other);
        open.add(other);
        if (controller.signal.aborted) other.close();
      },
    };
    const handler = serve(conn, scope).catch(() => {}).finally(() => {
      for (const c of mine) {
        c.close();
        open.delete(c);
      }
      handlers.delete(handler);
    });
    handlers.add(handler);
  };
  const loop = (async () => {
    for (;;) {
      const conn = await listener.accept();
      if (conn === null) return;
      if (controller.signal.aborted) {
        conn.close();
        return;
      }
      run(conn);
    }
  })();
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        controller.abort();
        listener.close();
        await loop;
        for (const c of open) c.close();
        await Promise.all([...handlers]);
      })();
      return closing;
    },
  };
}
