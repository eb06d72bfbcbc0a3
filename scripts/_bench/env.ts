/**
 * The bench's environment: one temp root under /tmp that is removed at the end (also on error and
 * on SIGINT/SIGTERM), tracked child processes that are killed on exit, and the child-job runner
 * that isolates each in-process measure in its own Deno process.
 */
import { join } from "node:path";
import { type ProcessPeak, TreePeakSampler } from "./proc.ts";

/** Prefix of the line a child job prints its JSON result on. */
export const JOB_RESULT_MARK = "@@BENCH_RESULT@@";

/** Options the whole run shares. */
export interface BenchOptions {
  quick: boolean;
  /** Repetitions per measure (≥ 5 for a full run). */
  runs: number;
}

/** Output of a child job. */
export interface JobResult<T> {
  result: T;
  /** Peaks of the child and its descendants when `sampleTree` was set. */
  peaks: ProcessPeak[];
  wallMs: number;
}

/** Shared state and helpers for the measures. */
export class BenchEnv {
  /** Absolute path of the temp root (under /tmp). */
  readonly root: string;
  /** The project root (where deno.json is). */
  readonly projectRoot: string;
  /** The Deno executable running the bench. */
  readonly deno: string = Deno.execPath();
  readonly options: BenchOptions;
  readonly #children = new Set<Deno.ChildProcess>();
  #cleaned = false;

  private constructor(root: string, projectRoot: string, options: BenchOptions) {
    this.root = root;
    this.projectRoot = projectRoot;
    this.options = options;
  }

  /** Creates the temp root. */
  static async create(projectRoot: string, options: BenchOptions): Promise<BenchEnv> {
    const root = await Deno.makeTempDir({ dir: "/tmp", prefix: "moat-bench-" });
    return new BenchEnv(root, projectRoot, options);
  }

  /** A path inside the temp root. */
  path(...parts: string[]): string {
    return join(this.root, ...parts);
  }

  /** Progress line on stderr (the table goes to stdout). */
  log(message: string): void {
    Deno.stderr.writeSync(new TextEncoder().encode(`[bench] ${message}\n`));
  }

  /** Spawns a tracked child process (killed by `cleanup`). */
  spawn(command: string, options: Deno.CommandOptions): Deno.ChildProcess {
    const child = new Deno.Command(command, options).spawn();
    this.#children.add(child);
    child.status.finally(() => this.#children.delete(child));
    return child;
  }

  /**
   * Runs `job` from scripts/_bench/jobs.ts in a fresh Deno process (so its memory figures are its
   * own) and returns what it reported. With `sampleTree`, VmHWM of the child and every process
   * below it (e.g. a sandbox tool host) is sampled while it runs.
   */
  async job<T>(
    job: string,
    params: unknown,
    options: { sampleTree?: boolean; timeoutMs?: number } = {},
  ): Promise<JobResult<T>> {
    const script = join(this.projectRoot, "scripts", "_bench", "child.ts");
    const start = performance.now();
    const child = this.spawn(this.deno, {
      args: [
        "run",
        "--allow-all",
        "--unstable-worker-options",
        script,
        job,
        JSON.stringify(params),
      ],
      cwd: this.projectRoot,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    });
    const sampler = options.sampleTree ? new TreePeakSampler(child.pid, 10) : undefined;
    const timeoutMs = options.timeoutMs ?? 120_000;
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, timeoutMs);
    const [out, err, status] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.status,
    ]).finally(() => clearTimeout(timer));
    const peaks = sampler?.stop() ?? [];
    const wallMs = performance.now() - start;
    const line = out.split("\n").find((l) => l.startsWith(JOB_RESULT_MARK));
    if (!status.success || line === undefined) {
      const why = status.signal ? `signal ${status.signal}` : `exit code ${status.code}`;
      throw new Error(
        `Bench job "${job}" failed (${why}${wallMs >= timeoutMs ? ", timed out" : ""}):\n${
          (err + out).trim().split("\n").slice(-15).join("\n")
        }`,
      );
    }
    return { result: JSON.parse(line.slice(JOB_RESULT_MARK.length)) as T, peaks, wallMs };
  }

  /** Kills tracked children and removes the temp root; safe to call twice. Synchronous. */
  cleanup(): void {
    if (this.#cleaned) return;
    this.#cleaned = true;
    for (const child of this.#children) {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }
    try {
      Deno.removeSync(this.root, { recursive: true });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        this.log(`could not remove ${this.root}: ${e instanceof Error ? e.message : e}`);
      }
    }
  }
}
