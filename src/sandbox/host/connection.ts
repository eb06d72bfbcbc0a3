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
  startsWork,
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
 * `config`. stderr's tail is kept for error messages. `options.statusFd`: command[0] is bwrap,
 * told to write its JSON status there (`--json-status-fd`); its first line, the first on stderr,
 * names the sandbox's first process, which `close()` kills when the host was sent no call.
 */
export function startProcessHost(
  command: string[],
  config: HostConfig,
  options: { processes: HostProcessOps; statusFd?: number },
): HostConnection {
  const [program, ...args] = command;
  if (program === undefined) throw new Error("startProcessHost needs a command");
  const { statusFd } = options;
  const child = options.processes.spawn(
    program,
    args,
    statusFd === undefined ? {} : { statusFd },
  );
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let stdinOpen = true;
  let writing = Promise.resolve();
  let stderrTail = "";
  // Until a call or query is sent the host runs nothing of its own, and nothing waits on it.
  let used = false;
  let sandboxPid: number | undefined;
  let statusRead: () => void = () => {};
  const statusSeen = new Promise<void>((resolve) => statusRead = resolve);
  const connection: HostConnection = {
    onMessage: () => {},
    send(msg) {
      if (startsWork(msg)) used = true;
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
      if (!used && statusFd !== undefined) {
        // It may still be starting, bwrap still building the view (and making mount points in
        // the workspace): killed with every process of the sandbox, not left to boot up to the
        // end of its stdin. Its pid namespace ends with its first process, and bwrap exits only
        // once that one is gone, so nothing of it runs after this run lets its placeholders go.
        await settledWithin([statusSeen, child.status], CLOSE_GRACE_MS);
        if (sandboxPid !== undefined) child.killChild(sandboxPid);
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
    // bwrap's status comes first, before the sandbox runs: what follows is the host's own.
    let first = statusFd === undefined ? undefined : "";
    for await (let chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      if (first !== undefined) {
        first += chunk;
        const end = first.indexOf("\n");
        if (end < 0 && first.length < 4096) continue;
        sandboxPid = end < 0 ? undefined : childPidOf(first.slice(0, end));
        chunk = sandboxPid === undefined ? first : first.slice(end + 1);
        first = undefined;
        statusRead();
      }
      stderrTail = (stderrTail + chunk).slice(-2000);
    }
  })().catch(() => {}).finally(statusRead);
  (connection as { closed: Promise<string> }).closed = (async () => {
    const status = await child.status;
    stdinOpen = false;
    await Promise.all([stdoutDone, stderrDone]);
    await writer.close().catch(() => {});
    const how = status.signal ? `killed by ${status.signal}` : `exit code ${status.code}`;
    // bwrap's last status line (the sandboxed program's exit code) is not the host's to say.
    const lines = stderrTail.trim().split("\n").filter((l) => !BWRAP_EXIT_LINE.test(l));
    const detail = lines.slice(-3).join(" / ");
    return detail ? `${how}: ${detail}` : how;
  })();
  connection.send({ type: "init", config });
  return connection;
}

/** bwrap's status line when the sandboxed program exited (`--json-status-fd`). */
const BWRAP_EXIT_LINE = /^\{ "exit-code": -?\d+ \}$/;

/** The `child-pid` of bwrap's first status line (`{ "child-pid": N, … }`); undefined if none. */
function childPidOf(line: string): number | undefined {
  try {
    const pid = (JSON.parse(line) as { "child-pid"?: unknown })["child-pid"];
    return typeof pid === "number" && Number.isInteger(pid) && pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
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
      if (startsWork(msg)) used = true;
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
