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
  /** The host running it. */
  connection: HostConnection;
  resolve: (output: ToolOutput) => void;
  reject: (error: Error) => void;
  onUpdate: (update: ToolUpdate) => void;
  name: string;
}

interface PendingQuery {
  kind: "query";
  connection: HostConnection;
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

/** How long an aborted call may go on before its host is stopped (the agent's grace period). */
export const ABANDON_AFTER_MS = 10_000;

/** Longest a call of these tools may run before its host is stopped (none of them waits). */
export const TOOL_DEADLINES_MS: Readonly<Record<string, number>> = { grep: 120_000 };

/** Options of ToolHostClient. */
export interface ToolHostClientOptions {
  /** After an aborted call has had this long to end, the host is stopped (default 10 s). */
  abandonAfterMs?: number;
  /** Per tool name: the longest a call may run before the host is stopped. */
  deadlinesMs?: Readonly<Record<string, number>>;
}

/**
 * Proxies executions and permission queries to a tool host started by `start`. When the host
 * dies, pending calls get error results (queries answer "denied") and the next request starts a
 * new host. A call that does not end after its abort (or past its tool's deadline) stops the host:
 * a tool stuck in a computation (a regular expression that backtracks) must not block the calls
 * after it.
 */
export class ToolHostClient {
  #start: () => HostConnection;
  #connection: HostConnection | undefined;
  #pending = new Map<number, PendingCall | PendingQuery>();
  #nextId = 1;
  #closed = false;
  #closeWhenIdle: (() => void) | undefined;
  #abandonAfterMs: number;
  #deadlinesMs: Readonly<Record<string, number>>;

  constructor(start: () => HostConnection, options: ToolHostClientOptions = {}) {
    this.#start = start;
    this.#abandonAfterMs = options.abandonAfterMs ?? ABANDON_AFTER_MS;
    this.#deadlinesMs = options.deadlinesMs ?? TOOL_DEADLINES_MS;
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
      let timer: ReturnType<typeof setTimeout> | undefined;
      const giveUp = (why: string) => {
        timer = undefined;
        if (this.#pending.get(id) !== pending) return;
        this.#settled(id);
        pending.resolve({ output: `Error: ${why}`, isError: true });
        // The host may be stuck in a computation it cannot leave: start a new one.
        void this.#restart(connection);
      };
      const onAbort = () => {
        connection.send({ type: "abort", id });
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(
          () =>
            giveUp(
              `"${name}" did not stop within ${
                this.#abandonAfterMs / 1000
              } s of being aborted; its tool host was restarted`,
            ),
          this.#abandonAfterMs,
        );
      };
      const finish = () => {
        options.signal.removeEventListener("abort", onAbort);
        if (timer !== undefined) clearTimeout(timer);
      };
      const deadline = this.#deadlinesMs[name];
      if (deadline !== undefined) {
        timer = setTimeout(
          () =>
            giveUp(
              `"${name}" did not finish within ${deadline / 1000} s and was stopped. A regular ` +
                "expression with nested quantifiers and a back-reference or look-around (e.g. " +
                "(a+)+\\1) can take exponential time: simplify the pattern or search a smaller path",
            ),
          deadline,
        );
      }
      const pending: PendingCall = {
        kind: "call",
        connection,
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
      };
      this.#pending.set(id, pending);
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
      this.#pending.set(id, { kind: "query", connection, resolve });
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

  /** Stops `connection` (if it is still the live one); the next request starts a new host. */
  async #restart(connection: HostConnection): Promise<void> {
    if (this.#connection !== connection) return;
    this.#connection = undefined;
    await connection.close();
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
      // Only this host's requests: a host stopped by #restart may end after its successor began.
      const pending = [...this.#pending].filter(([, p]) => p.connection === connection);
      for (const [id] of pending) this.#pending.delete(id);
      if (this.#pending.size === 0) {
        const close = this.#closeWhenIdle;
        this.#closeWhenIdle = undefined;
        close?.();
      }
      for (const [, p] of pending) {
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
