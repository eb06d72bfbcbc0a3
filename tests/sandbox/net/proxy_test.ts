import assert from "node:assert/strict";
import {
  type NetProxy,
  type NetProxyDecision,
  startNetProxy,
} from "../../../src/sandbox/net/proxy.ts";
import { normalizeTarget } from "../../../src/sandbox/net/proxy.ts";
import { createDenoNetOps } from "../../../src/sys/net.ts";
import { createTempWorkspace } from "../../support/workspace.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A TCP server on 127.0.0.1 (or `hostname`) started by the test; `heads` are the request heads. */
interface TestServer extends AsyncDisposable {
  port: number;
  heads: string[];
}

/** Echoes every byte back until the client ends its side, then closes (tests half-closes). */
function echoServer(hostname = "127.0.0.1"): TestServer {
  return serve(hostname, async (conn) => {
    const buffer = new Uint8Array(4096);
    for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
      await writeAll(conn, buffer.subarray(0, n));
    }
  });
}

/** Answers one HTTP request with `body` (Connection: close) and records its head. */
function httpServer(body: string): TestServer {
  const server = serve("127.0.0.1", async (conn) => {
    const head = await readHead(conn);
    server.heads.push(head);
    const bytes = encoder.encode(body);
    await writeAll(
      conn,
      encoder.encode(
        `HTTP/1.1 200 OK\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
      ),
    );
    await writeAll(conn, bytes);
  });
  return server;
}

function serve(hostname: string, handle: (conn: Deno.Conn) => Promise<void>): TestServer {
  const listener = Deno.listen({ hostname, port: 0 });
  const handlers: Promise<void>[] = [];
  const loop = (async () => {
    for await (const conn of listener) {
      handlers.push(handle(conn).catch(() => {}).finally(() => conn.close()));
    }
  })().catch(() => {});
  return {
    port: listener.addr.port,
    heads: [],
    async [Symbol.asyncDispose]() {
      listener.close();
      await loop;
      await Promise.all(handlers);
    },
  };
}

/** A port on 127.0.0.1 where nothing listens (opened and closed again). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let rest = bytes; rest.length > 0;) rest = rest.subarray(await conn.write(rest));
}

async function readExactly(conn: Deno.Conn, n: number): Promise<Uint8Array> {
  const out = new Uint8Array(n);
  for (let got = 0; got < n;) {
    const read = await conn.read(out.subarray(got));
    if (read === null) throw new Error(`stream ended after ${got} of ${n} bytes`);
    got += read;
  }
  return out;
}

async function readHead(conn: Deno.Conn): Promise<string> {
  let text = "";
  while (!text.includes("\r\n\r\n")) text += decoder.decode(await readExactly(conn, 1));
  return text;
}

async function readToEnd(conn: Deno.Conn): Promise<string> {
  let text = "";
  const buffer = new Uint8Array(4096);
  for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
  return text + decoder.decode();
}

/** A proxy on a socket in a temp dir that allows exactly `allow` ("host:port"). */
async function openProxy(allow: string[], options: { token?: Uint8Array } = {}) {
  const dir = await createTempWorkspace();
  const decisions: NetProxyDecision[] = [];
  const started = startNetProxy({
    socketPath: dir.path("proxy.sock"),
    net: createDenoNetOps(),
    allowed: (target) => Promise.resolve(allow.includes(target)),
    onDecision: (d) => decisions.push(d),
    ...options,
  });
  if (!started.ok) throw new Error(started.message);
  const proxy: NetProxy = started.proxy;
  return {
    proxy,
    decisions,
    dial: () => Deno.connect({ transport: "unix", path: proxy.socketPath }),
    async [Symbol.asyncDispose]() {
      await proxy.close();
      await dir.cleanup();
    },
  };
}

/** Sends a SOCKS5 greeting and CONNECT; returns the reply code (the connection stays open). */
async function socksConnect(conn: Deno.Conn, address: Uint8Array, port: number): Promise<number> {
  await writeAll(conn, Uint8Array.of(5, 1, 0));
  assert.deepEqual([...await readExactly(conn, 2)], [5, 0]);
  await writeAll(conn, Uint8Array.of(5, 1, 0, ...address, port >> 8, port & 0xff));
  const reply = await readExactly(conn, 10);
  assert.equal(reply[0], 5);
  return reply[1] ?? -1;
}

const ipv4 = (text: string) => Uint8Array.of(1, ...text.split(".").map(Number));
const domain = (name: string) => Uint8Array.of(3, name.length, ...encoder.encode(name));

Deno.test("net proxy: SOCKS5 CONNECT to an allowed IPv4 address or name tunnels both ways", async () => {
  await using echo = echoServer();
  await using p = await openProxy([`127.0.0.1:${echo.port}`]);
  for (const address of [ipv4("127.0.0.1"), domain("127.0.0.1")]) {
    const conn = await p.dial();
    try {
      assert.equal(await socksConnect(conn, address, echo.port), 0);
      await writeAll(conn, encoder.encode("ping"));
      await conn.closeWrite();
      // The half-close reaches the server, which then ends: everything came back.
      assert.equal(await readToEnd(conn), "ping");
    } finally {
      conn.close();
    }
  }
  assert.deepEqual(p.decisions, [
    { target: `127.0.0.1:${echo.port}`, allowed: true },
    { target: `127.0.0.1:${echo.port}`, allowed: true },
  ]);
});

Deno.test("net proxy: SOCKS5 refuses other targets with 0x02 before connecting", async () => {
  await using echo = echoServer();
  await using p = await openProxy([`127.0.0.1:${echo.port}`]);
  const other = closedPort();
  const cases: Array<[Uint8Array, number, string]> = [
    [ipv4("127.0.0.1"), other, `127.0.0.1:${other}`],
    [domain("localhost"), echo.port, `localhost:${echo.port}`],
    [Uint8Array.of(4, ...new Array(15).fill(0), 1), echo.port, `[::1]:${echo.port}`],
  ];
  for (const [address, port, target] of cases) {
    const conn = await p.dial();
    try {
      assert.equal(await socksConnect(conn, address, port), 2, target);
      assert.equal(await readToEnd(conn), "", "closed after the refusal");
    } finally {
      conn.close();
    }
  }
  assert.deepEqual(
    p.decisions.map((d) => [d.target, d.allowed]),
    cases.map(([, , target]) => [target, false]),
  );
});

/** Whether the IPv6 loopback can be listened on here. */
const IPV6 = (() => {
  try {
    Deno.listen({ hostname: "::1", port: 0 }).close();
    return true;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "net proxy: SOCKS5 tunnels to an allowed IPv6 address",
  ignore: !IPV6,
  async fn() {
    await using echo = echoServer("::1");
    await using p = await openProxy([`[::1]:${echo.port}`]);
    const conn = await p.dial();
    try {
      const address = Uint8Array.of(4, ...new Array(15).fill(0), 1);
      assert.equal(await socksConnect(conn, address, echo.port), 0);
      await writeAll(conn, encoder.encode("six"));
      await conn.closeWrite();
      assert.equal(await readToEnd(conn), "six");
    } finally {
      conn.close();
    }
  },
});

Deno.test("net proxy: SOCKS5 answers no-auth-less greetings, BIND and unreachable targets", async () => {
  await using p = await openProxy([]);
  const noAuth = await p.dial();
  try {
    await writeAll(noAuth, Uint8Array.of(5, 1, 2));
    assert.deepEqual([...await readExactly(noAuth, 2)], [5, 0xff]);
  } finally {
    noAuth.close();
  }
  const bind = await p.dial();
  try {
    await writeAll(bind, Uint8Array.of(5, 1, 0));
    await readExactly(bind, 2);
    await writeAll(bind, Uint8Array.of(5, 2, 0, 1, 127, 0, 0, 1, 0, 80));
    assert.equal((await readExactly(bind, 10))[1], 7, "command not supported");
  } finally {
    bind.close();
  }
  const port = closedPort();
  await using open = await openProxy([`127.0.0.1:${port}`]);
  const refused = await open.dial();
  try {
    assert.equal(await socksConnect(refused, ipv4("127.0.0.1"), port), 5, "connection refused");
  } finally {
    refused.close();
  }
  assert.deepEqual(p.decisions, [], "nothing was decided without a CONNECT");
});

Deno.test("net proxy: HTTP CONNECT tunnels to an allowed target and refuses others with 403", async () => {
  await using echo = echoServer();
  await using p = await openProxy([`127.0.0.1:${echo.port}`]);
  const conn = await p.dial();
  try {
    // The first tunnelled bytes arrive with the request, as clients that pipeline do.
    await writeAll(
      conn,
      encoder.encode(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nHost: x\r\n\r\nearly+`),
    );
    assert.match(await readHead(conn), /^HTTP\/1\.1 200 /);
    await writeAll(conn, encoder.encode("late"));
    await conn.closeWrite();
    assert.equal(await readToEnd(conn), "early+late");
  } finally {
    conn.close();
  }
  const other = closedPort();
  const denied = await p.dial();
  try {
    await writeAll(denied, encoder.encode(`CONNECT 127.0.0.1:${other} HTTP/1.1\r\n\r\n`));
    const answer = await readToEnd(denied);
    assert.ok(
      answer.startsWith(`HTTP/1.1 403 Forbidden by moat (add --allow-net=127.0.0.1:${other})\r\n`),
      answer,
    );
    assert.match(
      answer,
      new RegExp(
        `net access to "127\\.0\\.0\\.1:${other}" is not granted \\(add --allow-net=127\\.0\\.0\\.1:${other}\\)`,
      ),
    );
  } finally {
    denied.close();
  }
  assert.deepEqual(p.decisions, [
    { target: `127.0.0.1:${echo.port}`, allowed: true },
    { target: `127.0.0.1:${other}`, allowed: false },
  ]);
});

Deno.test("net proxy: with a token, only a connection that begins with it is served", async () => {
  await using echo = echoServer();
  const token = encoder.encode("0123456789abcdef0123456789abcdef");
  await using p = await openProxy([`127.0.0.1:${echo.port}`], { token });
  const request = encoder.encode(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\n`);
  // Without the token (a client that found the socket file): closed, nothing decided.
  for (const first of [request, Uint8Array.of(...token.subarray(0, 31), 0x30, ...request)]) {
    const stranger = await p.dial();
    try {
      await writeAll(stranger, first);
      await stranger.closeWrite();
      assert.equal(await readToEnd(stranger), "");
    } finally {
      stranger.close();
    }
  }
  assert.deepEqual(p.decisions, []);
  const conn = await p.dial();
  try {
    await writeAll(conn, Uint8Array.of(...token, ...request));
    assert.match(await readHead(conn), /^HTTP\/1\.1 200 /);
    await writeAll(conn, encoder.encode("tunnelled"));
    await conn.closeWrite();
    assert.equal(await readToEnd(conn), "tunnelled");
  } finally {
    conn.close();
  }
  assert.deepEqual(p.decisions, [{ target: `127.0.0.1:${echo.port}`, allowed: true }]);
});

Deno.test("net proxy: an absolute-URI GET is forwarded in origin form, one request per connection", async () => {
  await using web = httpServer("hello from upstream");
  await using p = await openProxy([`127.0.0.1:${web.port}`]);
  const conn = await p.dial();
  try {
    await writeAll(
      conn,
      encoder.encode(
        `GET http://127.0.0.1:${web.port}/path?q=1 HTTP/1.1\r\nHost: evil.example\r\n` +
          "User-Agent: test\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive, X-Hop\r\n" +
          "X-Hop: 1\r\n\r\n",
      ),
    );
    const answer = await readToEnd(conn);
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(answer, /\r\n\r\nhello from upstream$/);
  } finally {
    conn.close();
  }
  assert.equal(web.heads.length, 1);
  const lines = (web.heads[0] ?? "").split("\r\n");
  assert.equal(lines[0], "GET /path?q=1 HTTP/1.1");
  assert.ok(lines.includes(`Host: 127.0.0.1:${web.port}`), "Host comes from the URL");
  assert.ok(lines.includes("User-Agent: test"));
  assert.ok(lines.includes("Connection: close"));
  for (const dropped of [/^Proxy-Connection/i, /^Host: evil/, /^X-Hop/, /keep-alive/]) {
    assert.ok(!lines.some((l) => dropped.test(l)), `${dropped} was forwarded: ${web.heads[0]}`);
  }
});

Deno.test("net proxy: HTTP answers 403 naming the flag, 502 when unreachable, 400 when malformed", async () => {
  const refusedPort = closedPort();
  const deniedPort = closedPort();
  await using p = await openProxy([`127.0.0.1:${refusedPort}`]);
  const ask = async (request: string) => {
    const conn = await p.dial();
    try {
      await writeAll(conn, encoder.encode(request));
      return await readToEnd(conn);
    } finally {
      conn.close();
    }
  };
  const denied = await ask(`GET http://127.0.0.1:${deniedPort}/ HTTP/1.1\r\n\r\n`);
  assert.match(denied, /^HTTP\/1\.1 403 Forbidden by moat /);
  assert.match(denied, new RegExp(`--allow-net=127\\.0\\.0\\.1:${deniedPort}\\)\n$`));
  const unreachable = await ask(`GET http://127.0.0.1:${refusedPort}/ HTTP/1.1\r\n\r\n`);
  assert.match(
    unreachable,
    /^HTTP\/1\.1 502 Bad Gateway \(granted by moat, but the host did not answer\)\r\n/,
  );
  assert.match(
    unreachable,
    new RegExp(`network access to "127\\.0\\.0\\.1:${refusedPort}" is granted, but the host`),
  );
  for (
    const bad of [
      "GET /relative HTTP/1.1\r\n\r\n",
      "nonsense\r\n\r\n",
      "CONNECT x HTTP/1.1\r\n\r\n",
    ]
  ) {
    assert.match(await ask(bad), /^HTTP\/1\.1 400 Bad Request\r\n/, bad);
  }
  assert.deepEqual(p.decisions, [
    { target: `127.0.0.1:${deniedPort}`, allowed: false },
    { target: `127.0.0.1:${refusedPort}`, allowed: true },
  ]);
});

Deno.test("net proxy: close() ends open tunnels and leaves nothing running", async () => {
  await using echo = echoServer();
  const p = await openProxy([`127.0.0.1:${echo.port}`]);
  const conn = await p.dial();
  try {
    assert.equal(await socksConnect(conn, ipv4("127.0.0.1"), echo.port), 0);
    await writeAll(conn, encoder.encode("x"));
    assert.equal(decoder.decode(await readExactly(conn, 1)), "x");
    await p[Symbol.asyncDispose]();
    assert.equal(await readToEnd(conn).catch(() => ""), "");
  } finally {
    conn.close();
  }
});

Deno.test("normalizeTarget() names hosts as a URL does and rejects what is not a host", () => {
  assert.deepEqual(normalizeTarget("Example.COM", 443), { host: "example.com", port: 443 });
  assert.deepEqual(normalizeTarget("::1", 80), { host: "[::1]", port: 80 });
  assert.deepEqual(normalizeTarget("[0:0:0:0:0:0:0:1]", 80), { host: "[::1]", port: 80 });
  assert.deepEqual(normalizeTarget("0x7f.1", 80), { host: "127.0.0.1", port: 80 });
  for (const [host, port] of [["a b", 80], ["a/b", 80], ["user@h", 80], ["h", 0], ["h", 70000]]) {
    assert.equal(normalizeTarget(host as string, port as number), undefined, `${host}:${port}`);
  }
});
