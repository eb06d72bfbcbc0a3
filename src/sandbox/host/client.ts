/**
 * The main process's side of the tool host: a client that proxies tool executions and permission
 * queries over a connection (./connection.ts), fails pending calls when the host dies and starts
 * a new host for the next request.
 */
import type { ToolOutput, ToolUpdate } from "../../tools/mod.ts";
import type { HostConnection } from "./connection.ts";
import type { HostToMain, PermissionStateName } from "./protocol.ts";

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
