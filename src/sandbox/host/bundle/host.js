// src/sys/net.ts
function createDenoNetOps() {
  return {
    listenUnix(path) {
      return listen(() => Deno.listen({
        transport: "unix",
        path
      }), () => {
        try {
          Deno.removeSync(path);
        } catch {
        }
      });
    },
    listenTcp(hostname, port) {
      return listen(() => Deno.listen({
        transport: "tcp",
        hostname,
        port
      }), () => {
      });
    },
    async connectTcp(hostname, port, options = {}) {
      try {
        const conn = await Deno.connect({
          hostname,
          port,
          ...options.signal === void 0 ? {} : {
            signal: options.signal
          }
        });
        return {
          ok: true,
          conn: wrapConn(conn)
        };
      } catch (e) {
        return {
          ok: false,
          failure: failureOf(e),
          message: messageOf(e)
        };
      }
    },
    async connectUnix(path) {
      try {
        return {
          ok: true,
          conn: wrapConn(await Deno.connect({
            transport: "unix",
            path
          }))
        };
      } catch (e) {
        return {
          ok: false,
          failure: failureOf(e),
          message: messageOf(e)
        };
      }
    }
  };
}
function listen(open, cleanUp) {
  let listener;
  try {
    listener = open();
  } catch (e) {
    return {
      ok: false,
      message: messageOf(e)
    };
  }
  let closed = false;
  const wrapped = {
    async accept() {
      if (closed) return null;
      try {
        return wrapConn(await listener.accept());
      } catch {
        return null;
      }
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        listener.close();
      } catch {
      }
      cleanUp();
    }
  };
  const addr = listener.addr;
  return {
    ok: true,
    listener: wrapped,
    port: addr.transport === "tcp" ? addr.port : 0
  };
}
function wrapConn(conn) {
  let closed = false;
  return {
    read: (p) => conn.read(p),
    write: (p) => conn.write(p),
    async closeWrite() {
      try {
        await conn.closeWrite();
      } catch {
      }
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        conn.close();
      } catch {
      }
    }
  };
}
function failureOf(e) {
  if (e instanceof Deno.errors.ConnectionRefused) return "refused";
  if (e instanceof Deno.errors.NetworkUnreachable) return "unreachable";
  if (e instanceof Deno.errors.TimedOut) return "timed_out";
  return "other";
}
function messageOf(e) {
  return e instanceof Error ? e.message : String(e);
}

// src/sys/terminal.ts
function writeAll(file, text) {
  let bytes = new TextEncoder().encode(text);
  try {
    while (bytes.length > 0) {
      const n = file.writeSync(bytes);
      bytes = bytes.subarray(n);
    }
  } catch (e) {
    if (e instanceof Deno.errors.BrokenPipe || e instanceof Deno.errors.BadResource) return;
    throw e;
  }
}
function createDenoToolHostIo() {
  return {
    stdin: Deno.stdin.readable,
    stdout: Deno.stdout.writable,
    stderr: (text) => writeAll(Deno.stderr, text)
  };
}

// src/sys/tmp_scan.ts
function createDenoTmpScanOps() {
  return {
    entries(dir) {
      try {
        const out = [];
        for (const entry of Deno.readDirSync(dir)) {
          const info = Deno.lstatSync(`${dir}/${entry.name}`);
          out.push({
            name: entry.name,
            isDirectory: info.isDirectory,
            mtimeMs: info.mtime?.getTime() ?? 0
          });
        }
        return out;
      } catch {
        return void 0;
      }
    }
  };
}

// src/sandbox/net/_splice.ts
var CHUNK_BYTES = 64 * 1024;
async function writeAll2(conn, bytes) {
  let rest = bytes;
  while (rest.length > 0) {
    const n = await conn.write(rest);
    rest = rest.subarray(n);
  }
}
async function pump(from, to, first) {
  if (first.length > 0) await writeAll2(to, first);
  const buffer = new Uint8Array(CHUNK_BYTES);
  for (; ; ) {
    const n = await from.read(buffer);
    if (n === null) break;
    await writeAll2(to, buffer.subarray(0, n));
  }
  await to.closeWrite();
}
async function splice(a, b, aFirst = new Uint8Array()) {
  const fail = () => {
    a.close();
    b.close();
  };
  await Promise.all([
    pump(a, b, aFirst).catch(fail),
    pump(b, a, new Uint8Array()).catch(fail)
  ]);
  a.close();
  b.close();
}
function serveConnections(listener, serve) {
  const controller = new AbortController();
  const open = /* @__PURE__ */ new Set();
  const handlers = /* @__PURE__ */ new Set();
  const run = (conn) => {
    const mine = [
      conn
    ];
    open.add(conn);
    const scope = {
      signal: controller.signal,
      adopt(other) {
        mine.push(other);
        open.add(other);
        if (controller.signal.aborted) other.close();
      }
    };
    const handler = serve(conn, scope).catch(() => {
    }).finally(() => {
      for (const c of mine) {
        c.close();
        open.delete(c);
      }
      handlers.delete(handler);
    });
    handlers.add(handler);
  };
  const loop = (async () => {
    for (; ; ) {
      const conn = await listener.accept();
      if (conn === null) return;
      if (controller.signal.aborted) {
        conn.close();
        return;
      }
      run(conn);
    }
  })();
  let closing;
  return {
    close() {
      closing ??= (async () => {
        controller.abort();
        listener.close();
        await loop;
        for (const c of open) c.close();
        await Promise.all([
          ...handlers
        ]);
      })();
      return closing;
    }
  };
}

// src/sandbox/net/forward.ts
function startNetForwarder(net, socketPath, options = {}) {
  const listening = net.listenTcp("127.0.0.1", 0);
  if (!listening.ok) return {
    ok: false,
    message: listening.message
  };
  const server = serveConnections(listening.listener, async (conn, scope) => {
    const upstream = await net.connectUnix(socketPath);
    if (!upstream.ok) return;
    scope.adopt(upstream.conn);
    await splice(conn, upstream.conn, options.token);
  });
  return {
    ok: true,
    forwarder: {
      port: listening.port,
      close: () => server.close()
    }
  };
}
function hexToken(hex) {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}
var LOOPBACK_NO_PROXY = "localhost,127.0.0.1,::1";
function proxyEnvironment(port, options = {}) {
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
    no_proxy: noProxy
  };
}

// src/sandbox/worker/worker_modules.ts
var WORKER_MODULES = {
  /** Runs the built-in tools under the grants. */
  tools: "worker.ts",
  /** Answers permission queries against the deny lists. */
  query: "query_worker.ts",
  /** Scans files for grep alongside the tools Worker, with its permissions. */
  grep: "grep_worker.ts"
};
function workerModuleUrl(role, root) {
  return root === void 0 ? new URL(`./${WORKER_MODULES[role]}`, import.meta.url).href : new URL(`src/sandbox/worker/${WORKER_MODULES[role]}`, root).href;
}

// src/sandbox/host/helpers.ts
function isHelperRequest(msg) {
  const type = msg?.type;
  return type === "helper_start" || type === "helper_stop";
}
function createHelperHost(permissions, guard, helperUrl) {
  const running = /* @__PURE__ */ new Map();
  const stop = (id) => {
    const helper = running.get(id);
    if (helper === void 0) return;
    running.delete(id);
    helper.worker.terminate();
    helper.control.close();
  };
  return {
    handle(request) {
      if (request.type === "helper_stop") return stop(request.id);
      const { id, port, control } = request;
      let worker;
      try {
        worker = new Worker(helperUrl ?? workerModuleUrl("grep"), {
          type: "module",
          deno: {
            permissions
          }
        });
      } catch (e) {
        const failure = {
          type: "failed",
          message: String(e)
        };
        control.postMessage(failure);
        control.close();
        port.close();
        return;
      }
      running.set(id, {
        worker,
        control
      });
      worker.onerror = (e) => {
        e.preventDefault();
        const failure = {
          type: "failed",
          message: e.message
        };
        running.get(id)?.control.postMessage(failure);
        stop(id);
      };
      const init = {
        type: "init",
        port,
        guard
      };
      worker.postMessage(init, [
        port
      ]);
    },
    closeAll() {
      for (const id of [
        ...running.keys()
      ]) stop(id);
    }
  };
}

// src/sandbox/host/private_tmp.ts
import { join } from "node:path";
var MAX_ENTRIES = 2e3;
function snapshotPrivateTmp(tmp, ops) {
  const snapshot = /* @__PURE__ */ new Map();
  const queue = [
    tmp.path
  ];
  while (queue.length > 0 && snapshot.size < MAX_ENTRIES) {
    const dir = queue.shift();
    for (const entry of ops.entries(dir) ?? []) {
      const path = join(dir, entry.name);
      if (tmp.mounted.includes(path)) continue;
      snapshot.set(path, entry.mtimeMs);
      if (entry.isDirectory) queue.push(path);
      if (snapshot.size >= MAX_ENTRIES) break;
    }
  }
  return snapshot;
}
function changedInPrivateTmp(before, after) {
  for (const [path, mtime] of after) {
    if (before.get(path) !== mtime) return path;
  }
  return void 0;
}
function privateTmpNote(path, tmp) {
  return `[moat: ${tmp} is private to this run and discarded: what the command wrote there ("${path}") does not reach the machine and is gone when moat exits; write inside the workspace to keep it]`;
}

// src/sandbox/host/protocol.ts
function startsWork(msg) {
  return msg.type === "call" || msg.type === "query";
}
async function* readLines(stream) {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf("\n")) !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() !== "") yield line;
    }
  }
  if (buffered.trim() !== "") yield buffered;
}
async function settledWithin(promises, ms) {
  let timer;
  const expired = new Promise((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([
      ...promises.map((p) => p.then(() => true, () => true)),
      expired
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// src/sandbox/host/server.ts
var SHUTDOWN_GRACE_MS = 2e3;
async function serveToolHost(io, sys) {
  const writer = io.stdout.getWriter();
  const encoder = new TextEncoder();
  let writing = Promise.resolve();
  const send = (msg) => {
    const line = encoder.encode(JSON.stringify(msg) + "\n");
    writing = writing.then(() => writer.write(line)).catch(() => {
    });
  };
  let worker;
  let helpers;
  let forwarder;
  let fatal;
  const died = new Promise((resolve) => fatal = resolve);
  let shutdownDone;
  let privateTmp;
  let used = false;
  const bashStarts = /* @__PURE__ */ new Map();
  const withTmpNote = (out) => {
    const started = bashStarts.get(out.id);
    bashStarts.delete(out.id);
    if (started === void 0 || privateTmp === void 0 || sys.tmp === void 0) return out;
    const path = changedInPrivateTmp(started, snapshotPrivateTmp(privateTmp, sys.tmp));
    if (path === void 0) return out;
    const note = privateTmpNote(path, privateTmp.path);
    return {
      ...out,
      output: {
        ...out.output,
        output: `${out.output.output}
${note}`
      }
    };
  };
  const lines = readLines(io.stdin)[Symbol.asyncIterator]();
  const stdinDone = (async () => {
    for (; ; ) {
      const next = await lines.next();
      if (next.done) return;
      let msg;
      try {
        msg = JSON.parse(next.value);
      } catch {
        io.stderr?.(`tool host: ignoring a line that is not JSON
`);
        continue;
      }
      if (startsWork(msg)) used = true;
      if (msg.type === "init" && worker === void 0) privateTmp = msg.config.privateTmp;
      if (msg.type === "call" && msg.name === "bash" && privateTmp && sys.tmp) {
        bashStarts.set(msg.id, snapshotPrivateTmp(privateTmp, sys.tmp));
      }
      if (msg.type === "init") {
        if (worker !== void 0) continue;
        const netProxy = msg.config.netProxy;
        if (netProxy !== void 0 && forwarder === void 0) {
          const started = startNetForwarder(sys.net, netProxy.socketPath, netProxy.token === void 0 ? {} : {
            token: hexToken(netProxy.token)
          });
          if (!started.ok) {
            fatal?.(`cannot start the network proxy: ${started.message}`);
            return;
          }
          forwarder = started.forwarder;
          msg.config.toolOptions.env = {
            ...msg.config.toolOptions.env,
            ...proxyEnvironment(forwarder.port, {
              loopbackDirect: netProxy.loopbackDirect === true
            })
          };
        }
        try {
          worker = new Worker(msg.config.workerUrl, {
            type: "module",
            deno: {
              permissions: msg.config.permissions
            }
          });
        } catch (e) {
          fatal?.(`cannot start the tool worker: ${e instanceof Error ? e.message : String(e)}`);
          return;
        }
        const { permissions, toolOptions, helperUrl } = msg.config;
        const helperHost = createHelperHost(permissions, toolOptions.guard, helperUrl);
        helpers = helperHost;
        worker.onmessage = (e) => {
          if (isHelperRequest(e.data)) return helperHost.handle(e.data);
          const out = e.data;
          if (out.type === "shutdown_done") shutdownDone?.();
          else if (out.type === "fatal") fatal?.(out.message);
          else if (out.type === "result") send(withTmpNote(out));
          else {
            if (out.type === "error") bashStarts.delete(out.id);
            send(out);
          }
        };
        worker.onerror = (e) => {
          e.preventDefault();
          fatal?.(`the tool worker crashed: ${e.message}`);
        };
      }
      worker?.postMessage(msg);
    }
  })().catch((e) => io.stderr?.(`tool host: stdin failed: ${String(e)}
`));
  const outcome = await Promise.race([
    stdinDone.then(() => ({
      kind: "eof"
    })),
    died.then((message) => ({
      kind: "fatal",
      message
    }))
  ]);
  let code = 0;
  if (outcome.kind === "fatal") {
    send({
      type: "fatal",
      message: outcome.message
    });
    io.stderr?.(`tool host: ${outcome.message}
`);
    code = 1;
  } else if (worker !== void 0 && used) {
    const done = new Promise((resolve) => shutdownDone = resolve);
    worker.postMessage({
      type: "shutdown"
    });
    await settledWithin([
      done,
      died
    ], SHUTDOWN_GRACE_MS);
  }
  worker?.terminate();
  helpers?.closeAll();
  await forwarder?.close();
  await writing;
  await writer.close().catch(() => {
  });
  return code;
}

// src/sandbox/host/main.ts
function runToolHost(_argv, io = createDenoToolHostIo()) {
  return serveToolHost(io, {
    net: createDenoNetOps(),
    tmp: createDenoTmpScanOps()
  });
}

// src/sandbox/host/bundle_main.ts
if (import.meta.main) Deno.exit(await runToolHost(Deno.args.slice(1)));
