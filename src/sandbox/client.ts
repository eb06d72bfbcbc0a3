/**
 * The main process's side of the tool host: a connection to a bwrap'd host process or to an
 * in-process Worker, and a client that proxies tool executions and permission queries over it,
 * fails pending calls when the host dies and starts a new host for the next request.
 */
import type { ToolOutput, ToolUpdate } from "../tools/types.ts";
import type { HostProcessOps } from "./ops.ts";
import {
  type HostConfig,
  type HostToMain,
  type MainToHost,
  type PermissionStateName,
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
  let settle: (reason: string) => void = () => {};
  let gone = false;
  let shutdownDone: (() => void) | undefined;
  const closed = new Promise<string>((resolve) =>
    settle = (reason) => {
      if (gone) return;
      gone = true;
      worker.terminate();
      resolve(reason);
    }
  );
  const connection: HostConnection = {
    onMessage: () => {},
    send(msg) {
      if (!gone) worker.postMessage(msg);
    },
    closed,
    async close() {
      if (gone) return;
      const done = new Promise<void>((resolve) => shutdownDone = resolve);
      worker.postMessage({ type: "shutdown" } satisfies MainToHost);
      await settledWithin([done, closed], CLOSE_GRACE_MS);
      settle("closed");
    },
  };
  worker.onmessage = (e: MessageEvent) => {
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

interface PendingCall {
  kind: "call";
  resolve: (output: ToolOutput) => void;
  reject: (error: Error) => void;
  onUpdate: (update: ToolUpdate) => void;
  name: string;
}

interface PendingQuery {
  kind: "query";
  resolve: (answer: QueryAnswer) => void;
}

/** The Worker's permission states for a query, or why the host could not answer. */
export type QueryAnswer =
  | { ok: true; states: PermissionStateName[] }
  | { ok: false; reason: string };

/** Thrown to the pipeline when a tool threw inside the host (reported as a tool bug). */
export class RemoteToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RemoteToolError";
  }
}

/**
 * Proxies executions and permission queries to a tool host started by `start`. When the host
 * dies, pending calls get error results (queries answer "denied") and the next request starts a
 * new host.
 */
export class ToolHostClient {
  #start: () => HostConnection;
  #connection: HostConnection | undefined;
  #pending = new Map<number, PendingCall | PendingQuery>();
  #nextId = 1;
  #closed = false;
  #closeWhenIdle: (() => void) | undefined;

  constructor(start: () => HostConnection) {
    this.#start = start;
  }

  /** Starts the host now (so it is ready before the first call). */
  warmUp(): void {
    if (!this.#closed) this.#ensure();
  }

  /** Runs `name` in the host; resolves to its output (host death → an error result). */
  execute(
    name: string,
    args: unknown,
    options: { toolCallId: string; signal: AbortSignal; onUpdate: (u: ToolUpdate) => void },
  ): Promise<ToolOutput> {
    if (this.#closed) {
      return Promise.resolve({ output: "Error: the tool host is shut down", isError: true });
    }
    const connection = this.#ensure();
    const id = this.#nextId++;
    return new Promise<ToolOutput>((resolve, reject) => {
      const onAbort = () => connection.send({ type: "abort", id });
      const finish = () => options.signal.removeEventListener("abort", onAbort);
      this.#pending.set(id, {
        kind: "call",
        name,
        onUpdate: options.onUpdate,
        resolve: (output) => {
          finish();
          resolve(output);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      connection.send({ type: "call", id, name, args, toolCallId: options.toolCallId });
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Asks the Worker's permission engine about each descriptor. */
  query(descriptors: Deno.PermissionDescriptor[]): Promise<QueryAnswer> {
    if (this.#closed) return Promise.resolve({ ok: false, reason: "moat is shutting down" });
    const connection = this.#ensure();
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, { kind: "query", resolve });
      connection.send({ type: "query", id, descriptors });
    });
  }

  /** Stops the host (its processes die with it); pending calls get error results. */
  async close(): Promise<void> {
    this.#closed = true;
    const connection = this.#connection;
    if (connection !== undefined) await connection.close();
  }

  /** Closes the host once no call or query is pending (a replaced host drains first). */
  closeWhenIdle(): Promise<void> {
    if (this.#pending.size === 0) return this.close();
    return new Promise((resolve) => {
      this.#closeWhenIdle = () => void this.close().then(resolve);
    });
  }

  #settled(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0 && this.#closeWhenIdle !== undefined) {
      const close = this.#closeWhenIdle;
      this.#closeWhenIdle = undefined;
      close();
    }
  }

  #ensure(): HostConnection {
    if (this.#connection !== undefined) return this.#connection;
    const connection = this.#start();
    this.#connection = connection;
    connection.onMessage = (msg) => this.#onMessage(msg);
    void connection.closed.then((reason) => {
      if (this.#connection === connection) this.#connection = undefined;
      const pending = [...this.#pending.values()];
      this.#pending.clear();
      const close = this.#closeWhenIdle;
      this.#closeWhenIdle = undefined;
      close?.();
      for (const p of pending) {
        if (p.kind === "query") {
          p.resolve({
            ok: false,
            reason: this.#closed ? "moat is shutting down" : `the tool host stopped (${reason}); ` +
              "a new tool host is started for the next call — retry if needed",
          });
        } else {
          p.resolve({
            output: this.#closed
              ? `Error: moat is shutting down; "${p.name}" was stopped`
              : `Error: the tool host stopped (${reason}) before "${p.name}" finished; ` +
                "a new tool host is started for the next call — retry if needed",
            isError: true,
          });
        }
      }
    });
    return connection;
  }

  #onMessage(msg: HostToMain): void {
    switch (msg.type) {
      case "ready":
      case "shutdown_done":
      case "fatal":
        return;
      case "progress": {
        const p = this.#pending.get(msg.id);
        if (p?.kind === "call") p.onUpdate(msg.update);
        return;
      }
      case "result": {
        const p = this.#pending.get(msg.id);
        if (p?.kind !== "call") return;
        this.#settled(msg.id);
        p.resolve(msg.output);
        return;
      }
      case "error": {
        const p = this.#pending.get(msg.id);
        if (p?.kind !== "call") return;
        this.#settled(msg.id);
        p.reject(new RemoteToolError(msg.message));
        return;
      }
      case "query_result": {
        const p = this.#pending.get(msg.id);
        if (p?.kind !== "query") return;
        this.#settled(msg.id);
        p.resolve({ ok: true, states: msg.states });
        return;
      }
      default: {
        const never: never = msg;
        return never;
      }
    }
  }
}
