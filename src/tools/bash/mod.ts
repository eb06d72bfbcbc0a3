/**
 * The bash tool: `bash -c command` in its own process group, stdout and stderr collected
 * separately with bounded memory (tail in memory, first 10 MiB spilled to files), finished when
 * the command has exited and its output has ended or gone quiet, and the whole group killed at
 * the end, on timeout and on abort.
 */
import { type Static, Type } from "@sinclair/typebox";
import { join } from "node:path";
import type { Tool, ToolOutput } from "../../agent/tool.ts";
import type { ProcessOps, ProcessRegistry } from "../ops.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "../truncate.ts";
import { StreamCollector } from "./collector.ts";
import { type BashDetails, buildResult, type Ending } from "./output.ts";
import { readResult } from "./job_tool.ts";
import type { JobTable } from "./jobs.ts";
import { bashArgv, CallRun, type CommandPrefix, REAL_CLOCK, type UpdateClock } from "./run.ts";

export type { BashDetails } from "./output.ts";
export type { UpdateClock } from "./run.ts";

/** Arguments of the bash tool. */
export const BashParams = Type.Object({
  command: Type.String({ description: "The bash command line to run (passed to `bash -c`)." }),
  timeout: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description:
        "Timeout in seconds (default 120, capped by the configured maximum, 600 by default). " +
        "On timeout the command and everything it started are killed.",
    }),
  ),
  background: Type.Optional(
    Type.Boolean({
      description: "Run the command as a background job (a dev server, a watcher): the call " +
        "returns at once with a job id and the first lines of output; read, wait for or stop " +
        "the job with the job tool. No timeout applies; the job is killed when the session ends.",
    }),
  ),
});

/** Validated bash arguments. */
export type BashArgs = Static<typeof BashParams>;

/** Options for `createBashTool`. All but `process` and `processRegistry` are serialisable. */
export interface BashToolOptions {
  /** Working directory of every command. */
  cwd: string;
  /** Per-run directory for spilled output files (created when first needed). */
  spillDir: string;
  /**
   * The complete environment of the command; nothing is inherited and the tool never reads
   * Deno.env. Default: empty. The caller should include PATH; without one, `/usr/bin:/bin` is used.
   */
  env?: Record<string, string>;
  /** Default timeout in seconds (120). */
  timeoutSec?: number;
  /** Largest timeout the model may ask for, in seconds (600). */
  maxTimeoutSec?: number;
  /** Process operations (the entry points pass Deno's: src/sys/process.ts). */
  process: ProcessOps;
  /**
   * Argv prefix bash runs under, e.g. a nested `bwrap --unshare-pid --die-with-parent …`; a
   * function makes it at each call (a rejection fails the call with its message).
   */
  commandPrefix?: CommandPrefix;
  /** Registry of live process groups, so the host can kill them all on exit. */
  processRegistry?: ProcessRegistry;
  /** Time of the live updates' throttle (default: the real clock); tests pass a manual one. */
  updateClock?: UpdateClock;
  /** A directory private to the run and discarded at its end (the OS sandbox's /tmp), if any. */
  privateTmp?: string;
  /** Placeholders of protected paths may stand in the workspace (the OS sandbox's): say so. */
  placeholders?: boolean;
  /** The background jobs (shared with the job tool); absent: `background` is refused. */
  jobs?: JobTable;
}

/** How long a background start waits for the job's first lines (or its end). */
const FIRST_OUTPUT_MS = 1000;

/** Creates the bash tool. */
export function createBashTool(options: BashToolOptions): Tool<typeof BashParams> {
  const defaultTimeout = options.timeoutSec ?? 120;
  const maxTimeout = options.maxTimeoutSec ?? 600;
  const env = options.env ?? {};
  const prefix = options.commandPrefix;
  const registry = options.processRegistry;
  const processOps = options.process;

  return {
    name: "bash",
    label: "Bash",
    description:
      "Run a shell command with `bash -c` in the workspace directory; stdin is empty, so " +
      "interactive prompts fail. Returns the end of stdout and, separately, of stderr (together " +
      `at most ${DEFAULT_MAX_LINES} lines / ${DEFAULT_MAX_BYTES / 1024} KB); when output is ` +
      "dropped, a note gives the files holding the full output (first 10 MiB of each stream): " +
      "page them with the read tool. A non-zero exit code is reported at the end of the output, " +
      `not as an error. Default timeout ${defaultTimeout}s (pass \`timeout\` in seconds, at most ` +
      `${maxTimeout}s); on timeout or abort the command and everything it started are killed. ` +
      "Background processes (`&`) are killed when the command finishes: for a server or a " +
      "watcher that must keep running, pass `background: true` instead." +
      (options.privateTmp === undefined
        ? ""
        : ` ${options.privateTmp} is private to this run and discarded at its end: keep files ` +
          "you need inside the workspace.") +
      (options.placeholders
        ? " Empty read-only directories such as .vscode may appear during the run: they are " +
          "moat's placeholders keeping protected paths read-only; leave them."
        : ""),
    parameters: BashParams,
    kind: "execute",
    concurrencySafe: false,
    // The output is already bounded by its own budget; room for the notes keeps the generic
    // cap from cutting a second hole into the middle of it.
    maxResultChars: DEFAULT_MAX_BYTES + 4_000,
    locations() {
      return [{ access: "run", program: "bash" }];
    },
    prunedHint(_args, result) {
      const details = result.details as Partial<BashDetails> | undefined;
      const ended = typeof details?.exitCode === "number"
        ? `It exited with code ${details.exitCode}. `
        : "";
      const saved = [details?.stdoutFile, details?.stderrFile].filter((f) => f !== undefined);
      return saved.length > 0
        ? `${ended}Its full output was saved in ${
          saved.map((f) => JSON.stringify(f)).join(" and ")
        }: page it with the read tool (offset/limit).`
        : `${ended}Run the command again if you need its output (mind its side effects).`;
    },
    async execute(args, signal, ctx): Promise<ToolOutput> {
      const requested = args.timeout ?? defaultTimeout;
      const timeoutSec = Math.min(requested, maxTimeout);
      const notes: string[] = [];
      if (requested > maxTimeout) {
        notes.push(`[Timeout ${requested}s is over the maximum; used ${maxTimeout}s.]`);
      }
      const emptyDetails: BashDetails = {
        exitCode: null,
        timeoutSec,
        stdoutBytes: 0,
        stderrBytes: 0,
        truncated: false,
        retainedPeakBytes: 0,
      };
      if (signal.aborted) {
        return {
          output: "command aborted",
          isError: true,
          details: { ...emptyDetails, aborted: true },
        };
      }
      if (args.background === true) return await startJob(options, args.command, internalId(args));
      const callId = newCallId();
      const collectors = {
        stdout: new StreamCollector({
          openSpill: () =>
            processOps.createSpillFile(join(options.spillDir, `bash-${callId}.stdout.log`)),
        }),
        stderr: new StreamCollector({
          openSpill: () =>
            processOps.createSpillFile(join(options.spillDir, `bash-${callId}.stderr.log`)),
        }),
      };
      const built = await bashArgv(prefix, args.command);
      if (!built.ok) {
        return {
          output: `Cannot run the command: ${built.message}`,
          isError: true,
          details: emptyDetails,
        };
      }
      const argv = built.argv;
      const spawned = processOps.spawn(argv[0] as string, argv.slice(1), { cwd: options.cwd, env });
      if (!spawned.ok) {
        return {
          output: `Could not start bash in "${options.cwd}": ${spawned.message}`,
          isError: true,
          details: emptyDetails,
        };
      }
      const child = spawned.child;
      const unregister = registry?.add(child) ?? (() => {});
      const run = new CallRun(child, collectors, ctx.onUpdate, options.updateClock ?? REAL_CLOCK);
      let ending: Ending;
      try {
        ending = await run.wait(timeoutSec * 1000, signal);
      } finally {
        await run.finish();
        unregister();
      }
      return await buildResult({ ending, collectors, notes, timeoutSec, peak: run.peakRetained });
    },
  };
}

/** The job id the run assigned (the sandbox passes it with the call), if any. */
function internalId(args: BashArgs): string | undefined {
  const id = (args as Record<string, unknown>)[JOB_ID_ARG];
  return typeof id === "string" ? id : undefined;
}

/** The argument through which the run gives a background call its job id (never from a model). */
export const JOB_ID_ARG = "__job_id";

async function startJob(
  options: BashToolOptions,
  command: string,
  id: string | undefined,
): Promise<ToolOutput> {
  const table = options.jobs;
  if (table === undefined) {
    return {
      output: "Background jobs are not available here: run the command without `background`",
      isError: true,
    };
  }
  const started = await table.start(command, id);
  if (!started.ok) return { output: started.message, isError: true };
  const job = started.job;
  let timer: unknown;
  await Promise.race([
    job.exited,
    new Promise<void>((resolve) => timer = table.clock.setTimeout(resolve, FIRST_OUTPUT_MS)),
  ]);
  table.clock.clearTimeout(timer);
  await job.logged();
  const how = `Read its new output with the job tool ({"action": "read", "id": "${job.id}"}), ` +
    `wait for a line with {"action": "wait", "id": "${job.id}", "pattern": "…"}, and stop it ` +
    `with {"action": "stop", "id": "${job.id}"}.`;
  return readResult(job, [
    job.running
      ? `[Started job "${job.id}" in the background. ${how}]`
      : `[Started job "${job.id}"; it has already ended.]`,
  ], { preview: true });
}

/** A unique-enough id for spill file names (time + randomness; files are created exclusively). */
function newCallId(): string {
  const random = new Uint8Array(4);
  crypto.getRandomValues(random);
  const hex = [...random].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${Date.now().toString(36)}-${hex}`;
}
