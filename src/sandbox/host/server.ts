/**
 * The tool host's server (the process `moat __tool-host`, normally inside bubblewrap, whose
 * effects ./main.ts wires): reads JSON lines from stdin, starts the tool Worker with the grants as
 * Deno permissions, relays calls, aborts, progress, results and permission queries, and exits when
 * stdin closes or the Worker dies.
 */
import {
  hexToken,
  type NetForwarder,
  proxyEnvironment,
  startNetForwarder,
} from "../net/forward.ts";
import type { NetOps } from "../ops.ts";
import { createHelperHost, type HelperHost, isHelperRequest } from "./helpers.ts";
import {
  changedInPrivateTmp,
  privateTmpNote,
  snapshotPrivateTmp,
  type TmpScanOps,
  type TmpSnapshot,
} from "./private_tmp.ts";
import {
  type HostToMain,
  type MainToHost,
  readLines,
  settledWithin,
  startsWork,
} from "./protocol.ts";

/** The host's standard streams (./main.ts passes Deno's). */
export interface ToolHostIo {
  stdin: ReadableStream<Uint8Array>;
  stdout: WritableStream<Uint8Array>;
  /** Diagnostics (the main process keeps the tail for error messages). */
  stderr?: (text: string) => void;
}

/** The effects of the tool host beyond its standard streams. */
export interface ToolHostSys {
  /** Sockets of the forwarder to bash's network proxy (src/sandbox/net/forward.ts). */
  net: NetOps;
  /** Look-ups of the private /tmp, for the note of a bash call that wrote there. */
  tmp?: TmpScanOps;
}

/** How long a shutting-down Worker may take to kill its process groups. */
const SHUTDOWN_GRACE_MS = 2000;

/** Runs the tool host until stdin closes; resolves to the process exit code. Must not throw. */
export async function serveToolHost(io: ToolHostIo, sys: ToolHostSys): Promise<number> {
  const writer = io.stdout.getWriter();
  const encoder = new TextEncoder();
  let writing = Promise.resolve();
  const send = (msg: HostToMain) => {
    const line = encoder.encode(JSON.stringify(msg) + "\n");
    writing = writing.then(() => writer.write(line)).catch(() => {});
  };
  let worker: Worker | undefined;
  let helpers: HelperHost | undefined;
  let forwarder: NetForwarder | undefined;
  let fatal: ((message: string) => void) | undefined;
  const died = new Promise<string>((resolve) => fatal = resolve);
  let shutdownDone: (() => void) | undefined;
  let privateTmp: { path: string; mounted: string[] } | undefined;
  // Until a call or query arrives nothing runs or waits in the Worker: at the end of stdin it
  // is terminated, not shut down.
  let used = false;
  // Running bash calls: the private /tmp as each found it (for the note of its result).
  const bashStarts = new Map<number, TmpSnapshot>();

  const withTmpNote = (out: Extract<HostToMain, { type: "result" }>): HostToMain => {
    const started = bashStarts.get(out.id);
    bashStarts.delete(out.id);
    if (started === undefined || privateTmp === undefined || sys.tmp === undefined) return out;
    const path = changedInPrivateTmp(started, snapshotPrivateTmp(privateTmp, sys.tmp));
    if (path === undefined) return out;
    const note = privateTmpNote(path, privateTmp.path);
    return { ...out, output: { ...out.output, output: `${out.output.output}\n${note}` } };
  };

  const lines = readLines(io.stdin)[Symbol.asyncIterator]();
  const stdinDone = (async () => {
    for (;;) {
      const next = await lines.next();
      if (next.done) return;
      let msg: MainToHost;
      try {
        msg = JSON.parse(next.value) as MainToHost;
      } catch {
        io.stderr?.(`tool host: ignoring a line that is not JSON\n`);
        continue;
      }
      if (startsWork(msg)) used = true;
      if (msg.type === "init" && worker === undefined) privateTmp = msg.config.privateTmp;
      if (msg.type === "call" && msg.name === "bash" && privateTmp && sys.tmp) {
        bashStarts.set(msg.id, snapshotPrivateTmp(privateTmp, sys.tmp));
      }
      if (msg.type === "init") {
        if (worker !== undefined) continue;
        const netProxy = msg.config.netProxy;
        if (netProxy !== undefined && forwarder === undefined) {
          // bash reaches the network only through 127.0.0.1:PORT here, forwarded to moat's proxy.
          const started = startNetForwarder(
            sys.net,
            netProxy.socketPath,
            netProxy.token === undefined ? {} : { token: hexToken(netProxy.token) },
          );
          if (!started.ok) {
            fatal?.(`cannot start the network proxy: ${started.message}`);
            return;
          }
          forwarder = started.forwarder;
          msg.config.toolOptions.env = {
            ...msg.config.toolOptions.env,
            ...proxyEnvironment(forwarder.port, {
              loopbackDirect: netProxy.loopbackDirect === true,
            }),
          };
        }
        try {
          worker = new Worker(msg.config.workerUrl, {
            type: "module",
            deno: { permissions: msg.config.permissions },
          });
        } catch (e) {
          fatal?.(`cannot start the tool worker: ${e instanceof Error ? e.message : String(e)}`);
          return;
        }
        // grep's helper Workers, started here with the tool Worker's permissions (./helpers.ts).
        const { permissions, toolOptions, helperUrl } = msg.config;
        const helperHost = createHelperHost(permissions, toolOptions.guard, helperUrl);
        helpers = helperHost;
        worker.onmessage = (e: MessageEvent) => {
          if (isHelperRequest(e.data)) return helperHost.handle(e.data);
          const out = e.data as HostToMain;
          if (out.type === "shutdown_done") shutdownDone?.();
          else if (out.type === "fatal") fatal?.(out.message);
          else if (out.type === "result") send(withTmpNote(out));
          else {
            if (out.type === "error") bashStarts.delete(out.id);
            send(out);
          }
        };
        worker.onerror = (e: ErrorEvent) => {
          e.preventDefault();
          fatal?.(`the tool worker crashed: ${e.message}`);
        };
      }
      worker?.postMessage(msg);
    }
  })().catch((e) => io.stderr?.(`tool host: stdin failed: ${String(e)}\n`));

  const outcome = await Promise.race([
    stdinDone.then(() => ({ kind: "eof" as const })),
    died.then((message) => ({ kind: "fatal" as const, message })),
  ]);
  let code = 0;
  if (outcome.kind === "fatal") {
    send({ type: "fatal", message: outcome.message });
    io.stderr?.(`tool host: ${outcome.message}\n`);
    code = 1;
  } else if (worker !== undefined && used) {
    // stdin closed: kill every process group the tools started, then stop the Worker.
    const done = new Promise<void>((resolve) => shutdownDone = resolve);
    worker.postMessage({ type: "shutdown" } satisfies MainToHost);
    await settledWithin([done, died], SHUTDOWN_GRACE_MS);
  }
  worker?.terminate();
  helpers?.closeAll();
  await forwarder?.close();
  await writing;
  await writer.close().catch(() => {});
  return code;
}
