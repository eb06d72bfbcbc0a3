/**
 * Background jobs of the bash tool: commands started with `background: true` that keep running
 * after their call returns, until stopped, or until the tool host ends (its process registry kills
 * them). Each job's stdout and stderr are merged as a terminal shows `2>&1`: the output since the
 * last read is kept in a bounded tail, and the first 10 MiB go to a log file in the spill directory.
 */
import { join } from "node:path";
import type { ChildProcessHandle, ProcessExit, ProcessOps, ProcessRegistry } from "../ops.ts";
import { StreamCollector } from "./collector.ts";
import { bashArgv, type CommandPrefix, REAL_CLOCK, type UpdateClock } from "./run.ts";
import { TailBuffer } from "./tail.ts";

/** Most jobs running at once in one tool host. */
export const DEFAULT_MAX_JOBS = 8;
/** Bytes of a job's output kept in memory since the last read. */
const UNREAD_CAPACITY = 64 * 1024;
/** Bytes of a job's latest output kept for its last lines. */
const RECENT_CAPACITY = 4 * 1024;
/** Characters of an unfinished line kept for pattern matching. */
const MAX_PARTIAL_LINE = 4096;
/** How long a stopped job's pipes may take to end before they are cancelled. */
const STOP_DRAIN_MS = 500;

/** A job's state as the tools and the CLI see it. */
export interface JobInfo {
  id: string;
  command: string;
  pid: number;
  state: "running" | "exited" | "stopped";
  /** Exit code once exited by itself; null otherwise. */
  exitCode: number | null;
  /** The signal that ended it, if one did. */
  signal: string | null;
  /** Bytes and lines printed so far. */
  outputBytes: number;
  outputLines: number;
  /** The file holding the first 10 MiB of its output, once it printed anything. */
  logFile: string | null;
  /** Its last lines (at most about 4 KB). */
  lastLines: string;
}

/** Why a wait ended. */
export type WaitEnd = "match" | "exit" | "timeout" | "abort";

/** Options of a `JobTable`. */
export interface JobTableOptions {
  cwd: string;
  spillDir: string;
  env: Record<string, string>;
  process: ProcessOps;
  /** Argv prefix bash runs under (the nested bwrap), or how to build it for each start. */
  commandPrefix?: CommandPrefix;
  processRegistry?: ProcessRegistry;
  /** Most jobs running at once (default 8). */
  maxJobs?: number;
  /** Timers of waits (default: the real clock). */
  clock?: UpdateClock;
}

/** A job start: the job, or why it did not start. */
export type JobStart = { ok: true; job: Job } | { ok: false; message: string };

/** One background job. */
export class Job {
  readonly id: string;
  readonly command: string;
  readonly #child: ChildProcessHandle;
  readonly #log: StreamCollector;
  #unread = new TailBuffer(UNREAD_CAPACITY);
  /** The start's preview, until the next read. */
  #preview = "";
  readonly #recent = new TailBuffer(RECENT_CAPACITY);
  readonly #decoder = new TextDecoder();
  #partial = "";
  #writing: Promise<void> = Promise.resolve();
  #status: ProcessExit | null = null;
  #stopped = false;
  readonly #listeners = new Set<(line: string | null) => void>();
  readonly #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  /** Settles once both pipes ended. */
  readonly ended: Promise<void>;
  /** Settles once the process exited. */
  readonly exited: Promise<void>;

  constructor(id: string, command: string, child: ChildProcessHandle, log: StreamCollector) {
    this.id = id;
    this.command = command;
    this.#child = child;
    this.#log = log;
    this.exited = child.status.then((status) => {
      this.#status = status;
      this.#notify(null);
    });
    this.ended = Promise.all([this.#pump(child.stdout), this.#pump(child.stderr)]).then(() =>
      this.#writing
    ).then(() => this.#log.close());
  }

  async #pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) return;
        this.#take(r.value.slice());
      }
    } catch (e) {
      // A failing or cancelled pipe ends the stream like EOF.
      if (!(e instanceof Error)) throw e;
    }
  }

  #take(chunk: Uint8Array): void {
    this.#unread.push(chunk);
    this.#recent.push(chunk);
    this.#writing = this.#writing.then(() => this.#log.push(chunk));
    const lines = (this.#partial + this.#decoder.decode(chunk, { stream: true })).split("\n");
    this.#partial = (lines.pop() ?? "").slice(-MAX_PARTIAL_LINE);
    for (const line of lines) this.#notify(line);
    if (this.#partial !== "") this.#notify(this.#partial);
  }

  #notify(line: string | null): void {
    for (const listener of [...this.#listeners]) listener(line);
  }

  /**
   * Settles once the output so far is in the log file (the file exists once it printed anything),
   * so that a result names the file whenever it shows output.
   */
  async logged(): Promise<void> {
    await this.#writing;
  }

  /** True until the process exited. */
  get running(): boolean {
    return this.#status === null;
  }

  /**
   * The output since the last read (its bounded tail), and marks it read. A `preview` (the first
   * lines the start shows) is read for `read`, but a later pattern `wait` still looks at it: a
   * server's "ready" line is often among its first.
   */
  takeUnread(options: { preview?: boolean } = {}): TailBuffer {
    const unread = this.#unread;
    this.#unread = new TailBuffer(UNREAD_CAPACITY);
    this.#preview = options.preview === true ? unread.view().text : "";
    return unread;
  }

  /**
   * Waits until a line of output matches `pattern` (lines since the last read count, and the
   * start's preview until then), the job
   * exits, `timeoutMs` pass, or `signal` aborts.
   */
  wait(
    pattern: RegExp | undefined,
    options: { timeoutMs: number; signal: AbortSignal; clock: UpdateClock },
  ): Promise<WaitEnd> {
    if (
      pattern !== undefined &&
      `${this.#preview}\n${this.#unread.view().text}`.split("\n").some((l) => pattern.test(l))
    ) {
      return Promise.resolve("match");
    }
    if (!this.running) return Promise.resolve("exit");
    if (options.signal.aborted) return Promise.resolve("abort");
    return new Promise<WaitEnd>((resolve) => {
      const done = (end: WaitEnd) => {
        this.#listeners.delete(listener);
        options.clock.clearTimeout(timer);
        options.signal.removeEventListener("abort", onAbort);
        resolve(end);
      };
      const listener = (line: string | null) => {
        if (line === null) done("exit");
        else if (pattern?.test(line)) done("match");
      };
      const onAbort = () => done("abort");
      const timer = options.clock.setTimeout(() => done("timeout"), options.timeoutMs);
      this.#listeners.add(listener);
      options.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Kills the job's whole process tree and waits for it (its pipes a short while). */
  async stop(clock: UpdateClock): Promise<void> {
    if (this.running) this.#stopped = true;
    await this.#child.killGroup();
    await this.#child.status;
    let timer: unknown;
    await Promise.race([
      this.ended,
      new Promise<void>((resolve) => timer = clock.setTimeout(resolve, STOP_DRAIN_MS)),
    ]);
    clock.clearTimeout(timer);
    await Promise.all(this.#readers.map((r) => r.cancel().catch(() => {})));
    await this.ended;
  }

  /** The job's state. */
  info(): JobInfo {
    const status = this.#status;
    return {
      id: this.id,
      command: this.command,
      pid: this.#child.pid,
      state: status === null ? "running" : this.#stopped ? "stopped" : "exited",
      exitCode: status !== null && status.signal === null ? status.code : null,
      signal: status?.signal ?? null,
      outputBytes: this.#recent.totalBytes,
      outputLines: this.#recent.totalLines,
      logFile: this.#log.spillPath,
      lastLines: this.#recent.view().text,
    };
  }
}

/** The background jobs of one tool host. */
export class JobTable {
  readonly #options: JobTableOptions;
  readonly #jobs = new Map<string, Job>();
  #next = 1;
  /** The clock of waits. */
  readonly clock: UpdateClock;

  constructor(options: JobTableOptions) {
    this.#options = options;
    this.clock = options.clock ?? REAL_CLOCK;
  }

  /** Starts `command` as a job (id: `id`, else the next number). */
  async start(command: string, id?: string): Promise<JobStart> {
    // Built before the limit is counted, so that no await falls between counting and adding.
    const built = await bashArgv(this.#options.commandPrefix, command);
    if (!built.ok) return { ok: false, message: `Cannot start the job: ${built.message}` };
    const argv = built.argv;
    const max = this.#options.maxJobs ?? DEFAULT_MAX_JOBS;
    const running = [...this.#jobs.values()].filter((j) => j.running);
    if (running.length >= max) {
      return {
        ok: false,
        message: `Job limit reached: ${max} jobs are running (${
          running.map((j) => `"${j.id}"`).join(", ")
        }); stop one with the job tool (action "stop") before starting another`,
      };
    }
    let jobId = id ?? String(this.#next);
    while (this.#jobs.has(jobId)) jobId = String(++this.#next);
    this.#next++;
    const { process, cwd, env, spillDir } = this.#options;
    const spawned = process.spawn(argv[0] as string, argv.slice(1), { cwd, env });
    if (!spawned.ok) {
      return { ok: false, message: `Could not start bash in "${cwd}": ${spawned.message}` };
    }
    const log = new StreamCollector({
      openSpill: () => process.createSpillFile(join(spillDir, `job-${jobId}-${Date.now()}.log`)),
      spillThreshold: { maxBytes: 0, maxLines: 0 },
    });
    const job = new Job(jobId, command, spawned.child, log);
    // Tracked for the host's lifetime: what the job started may outlive its leader's exit.
    this.#options.processRegistry?.add(spawned.child);
    this.#jobs.set(jobId, job);
    return { ok: true, job };
  }

  /** The job `id`, if there is one. */
  get(id: string): Job | undefined {
    return this.#jobs.get(id);
  }

  /** Stops every running job; resolves to the states of those it stopped. */
  async stopAll(): Promise<JobInfo[]> {
    const running = this.list().filter((j) => j.running);
    await Promise.all(running.map((j) => j.stop(this.clock)));
    return running.map((j) => j.info());
  }

  /** Every job, oldest first. */
  list(): Job[] {
    return [...this.#jobs.values()];
  }
}
