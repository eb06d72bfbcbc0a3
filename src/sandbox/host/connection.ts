/**
 * Connections to a tool host: a bwrap'd host process (JSON lines over its stdin/stdout) or the
 * tool Worker in this process. Both carry the same messages and settle `closed` once the host is
 * gone.
 */
import type { HostProcessOps } from "../ops.ts";
import { createHelperHost, isHelperRequest } from "./helpers.ts";
import {
  type HostConfig,
  type HostToMain,
  type MainToHost,
  readLines,
  settledWithin,
} from "./protocol.ts";

/** A live tool host (process or Worker). */
export interface HostConnection {
  send(msg: MainToHost): void;
  /** Set by the client before the first message arrives. */
  onMessage: (msg: HostToMain) => void;
  /** Settles once the host is gone, with why (never rejects). */
  readonly closed: Promise<string>;
  /** Asks the host to kill its processes and exit; kills it after a grace period. */
  close(): Promise<void>;
}

/** How long `close()` waits for a host to shut down by itself before killing it. */
const CLOSE_GRACE_MS = 2000;

/**
 * Starts the tool host as a subprocess (`command[0]` with the rest as args, e.g. bwrap …) through
 * `options.processes` (in its own session, away from the terminal's Ctrl-C) and sends it
 * `config`. stderr's tail is kept for error messages.
 */
export function startProcessHost(
  command: string[],
  config: HostConfig,
  options: { processes: HostProcessOps },
): HostConnection {
  const [program, ...args] = command;
  if (program === undefined) throw new Error("startProcessHost needs a command");
  const child = options.processes.spawn(program, args);
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let stdinOpen = true;
  let writing = Promise.resolve();
  let stderrTail = "";
  const connection: HostConnection = {
    onMessage: () => {},
    send(msg) {
      if (!stdinOpen) return;
      const bytes = encoder.encode(JSON.stringify(msg) + "\n");
      writing = writing.then(() => writer.write(bytes)).catch(() => {
        stdinOpen = false;
      });
    },
    closed: Promise.resolve(""),
    async close() {
      if (stdinOpen) {
        stdinOpen = false;
        await writing;
        await writer.close().catch(() => {});
      }
      if (!await settledWithin([child.status], CLOSE_GRACE_MS)) child.kill();
      await connection.closed;
    },
  };
  const stdoutDone = (async () => {
    for await (const line of readLines(child.stdout)) {
      let msg: HostToMain;
      try {
        msg = JSON.parse(line) as HostToMain;
      } catch {
        stderrTail = (stderrTail + `unexpected output: ${line.slice(0, 200)}\n`).slice(-2000);
        continue;
      }
      connection.onMessage(msg);
    }
  })().catch(() => {});
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderrTail = (stderrTail + chunk).slice(-2000);
    }
  })().catch(() => {});
  (connection as { closed: Promise<string> }).closed = (async () => {
    const status = await child.status;
    stdinOpen = false;
    await Promise.all([stdoutDone, stderrDone]);
    await writer.close().catch(() => {});
    const how = status.signal ? `killed by ${status.signal}` : `exit code ${status.code}`;
    const detail = stderrTail.trim().split("\n").slice(-3).join(" / ");
    return detail ? `${how}: ${detail}` : how;
  })();
  connection.send({ type: "init", config });
  return connection;
}

/**
 * Starts the tool Worker in this process (no OS sandbox: Deno's permissions are the boundary) and
 * sends it `config`.
 */
export function startWorkerHost(config: HostConfig): HostConnection {
  const worker = new Worker(config.workerUrl, {
    type: "module",
    deno: { permissions: config.permissions },
  });
  // grep's helper Workers, started here with the tool Worker's permissions (./helpers.ts).
  const helpers = createHelperHost(config.permissions, config.toolOptions.guard);
  let settle: (reason: string) => void = () => {};
  let gone = false;
  let shutdownDone: (() => void) | undefined;
  const closed = new Promise<string>((resolve) =>
    settle = (reason) => {
      if (gone) return;
      gone = true;
      worker.terminate();
      helpers.closeAll();
      resolve(reason);
    }
  );
  // Until a call or query is sent nothing runs or waits in it: close() need not shut it down.
  let used = false;
  const connection: HostConnection = {
    onMessage: () => {},
    send(msg) {
      if (msg.type === "call" || msg.type === "query") used = true;
      if (!gone) worker.postMessage(msg);
    },
    closed,
    async close() {
      if (gone) return;
      // It may still be loading; it has no view, so no placeholders wait on it either.
      if (!used) return settle("closed");
      const done = new Promise<void>((resolve) => shutdownDone = resolve);
      worker.postMessage({ type: "shutdown" } satisfies MainToHost);
      await settledWithin([done, closed], CLOSE_GRACE_MS);
      settle("closed");
    },
  };
  worker.onmessage = (e: MessageEvent) => {
    if (isHelperRequest(e.data)) return helpers.handle(e.data);
    const msg = e.data as HostToMain;
    if (msg.type === "shutdown_done") shutdownDone?.();
    else if (msg.type === "fatal") settle(msg.message);
    else connection.onMessage(msg);
  };
  worker.onerror = (e: ErrorEvent) => {
    e.preventDefault();
    settle(`the tool worker crashed: ${e.message}`);
  };
  connection.send({ type: "init", config });
  return connection;
}
