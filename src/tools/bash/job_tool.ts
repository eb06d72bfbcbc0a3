/**
 * The job tool: reads, waits for and stops the background jobs that bash started with
 * `background: true` (./jobs.ts).
 */
import { type Static, Type } from "@sinclair/typebox";
import type { Tool, ToolOutput } from "../../agent/tool.ts";
import { formatSize } from "../truncate.ts";
import { fitTails } from "./fit.ts";
import type { Job, JobInfo, JobTable, WaitEnd } from "./jobs.ts";
import { shownToModel } from "./output.ts";
import type { TailBuffer } from "./tail.ts";

/** Arguments of the job tool. */
export const JobParams = Type.Object({
  action: Type.Union([
    Type.Literal("read"),
    Type.Literal("wait"),
    Type.Literal("stop"),
    Type.Literal("list"),
  ], {
    description: "read: the job's new output since the last read; wait: block until a line " +
      "matches `pattern` (or, without one, until the job exits) or `timeout` passes, then read; " +
      "stop: kill the job and everything it started; list: every job and its state.",
  }),
  id: Type.Optional(
    Type.String({ description: "The job id bash returned (every action but list needs it)." }),
  ),
  pattern: Type.Optional(
    Type.String({
      description: "wait: a JavaScript regular expression tested against each new output line, " +
        'e.g. "Listening on|ready".',
    }),
  ),
  timeout: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: "wait: the longest to wait, in seconds (default 30, at most 600). The job " +
        "keeps running when the wait times out.",
    }),
  ),
});

/** Validated job arguments. */
export type JobArgs = Static<typeof JobParams>;

/** The `details` of a job result: the job's state (every job's for list). */
export interface JobDetails {
  job?: JobInfo;
  jobs?: JobInfo[];
  /** Why a wait ended. */
  waited?: WaitEnd;
  /** stop: the job was running and this call stopped it. */
  stopped?: boolean;
}

const DEFAULT_WAIT_SEC = 30;
const MAX_WAIT_SEC = 600;

/** Creates the job tool over the bash tool's job table. */
export function createJobTool(table: JobTable): Tool<typeof JobParams> {
  return {
    name: "job",
    label: "Job",
    description: "Read, wait for, or stop a background job that bash started with " +
      "`background: true` (a dev server, a watcher). `read` returns the job's new output since " +
      "the last read (stdout and stderr merged, the end kept when it is long; the first 10 MiB " +
      "are in the log file named in the result); `wait` blocks until a new line matches " +
      "`pattern` or the job exits; `stop` kills the job and everything it started. Jobs are " +
      "killed when the session ends.",
    parameters: JobParams,
    kind: "read",
    concurrencySafe: false,
    locations: () => [],
    async execute(args, signal): Promise<ToolOutput> {
      if (args.action === "list") return listResult(table.list());
      if (args.id === undefined) {
        return { output: `The action "${args.action}" needs the job's \`id\``, isError: true };
      }
      const job = table.get(args.id);
      if (job === undefined) {
        const ids = table.list().map((j) => `"${j.id}"`).join(", ");
        return {
          output: `No job "${args.id}": ${
            ids === "" ? "no job was started" : `the jobs are ${ids}`
          }; start one with bash (\`background: true\`)`,
          isError: true,
        };
      }
      switch (args.action) {
        case "read":
          await job.logged();
          return readResult(job, []);
        case "wait": {
          let pattern: RegExp | undefined;
          if (args.pattern !== undefined) {
            try {
              pattern = new RegExp(args.pattern);
            } catch (e) {
              return {
                output: `Invalid pattern "${args.pattern}": ${(e as Error).message}`,
                isError: true,
              };
            }
          }
          const sec = Math.min(args.timeout ?? DEFAULT_WAIT_SEC, MAX_WAIT_SEC);
          const end = await job.wait(pattern, {
            timeoutMs: sec * 1000,
            signal,
            clock: table.clock,
          });
          await job.logged();
          return readResult(job, [waitLine(end, sec, args.pattern)], { waited: end });
        }
        case "stop": {
          const wasRunning = job.running;
          await job.stop(table.clock);
          const out = readResult(job, wasRunning ? [] : ["[It had already ended.]"]);
          return { ...out, details: { ...(out.details as JobDetails), stopped: wasRunning } };
        }
        default: {
          const never: never = args.action;
          return never;
        }
      }
    },
  };
}

function waitLine(end: WaitEnd, sec: number, pattern: string | undefined): string {
  switch (end) {
    case "match":
      return `[A line matched ${JSON.stringify(pattern)}.]`;
    case "exit":
      return "[The job ended.]";
    case "timeout":
      return `[Waited ${sec}s: ${
        pattern === undefined ? "the job is still running" : `no new line matched so far`
      }.]`;
    case "abort":
      return "[The wait was aborted.]";
    default: {
      const never: never = end;
      return never;
    }
  }
}

/** A one-line state of the job: running, or how it ended. */
export function stateLine(info: JobInfo): string {
  const head = `Job "${info.id}" (\`${info.command}\`, pid ${info.pid})`;
  switch (info.state) {
    case "running":
      return `${head} is running.`;
    case "stopped":
      return `${head} was stopped.`;
    case "exited":
      return info.signal !== null
        ? `${head} was killed by signal ${info.signal}.`
        : `${head} exited with code ${info.exitCode}.`;
    default: {
      const never: never = info.state;
      return never;
    }
  }
}

/** The new output of `job` (consumed), then notes and its state. */
export function readResult(
  job: Job,
  notes: string[],
  options: { waited?: WaitEnd; preview?: boolean } = {},
): ToolOutput {
  const { waited } = options;
  const info = job.info();
  const body = unreadText(job.takeUnread({ preview: options.preview === true }), info);
  const sections = [body.text, [...notes, ...body.notes, stateLine(info)].join("\n")];
  const details: JobDetails = { job: info, ...(waited === undefined ? {} : { waited }) };
  return { output: sections.filter((s) => s !== "").join("\n\n"), details };
}

function unreadText(unread: TailBuffer, info: JobInfo): { text: string; notes: string[] } {
  const empty = { text: "", complete: true, lineCut: false, totalBytes: 0, totalLines: 0 };
  const { stdout } = fitTails(unread.view(), empty);
  if (stdout.totalBytes === 0) return { text: "(no new output)", notes: [] };
  const notes: string[] = [];
  if (stdout.truncated) {
    notes.push(
      `[Showing the last ${stdout.shownLines} of ${stdout.totalLines} new lines (${
        formatSize(stdout.totalBytes)
      }).${
        info.logFile === null
          ? ""
          : ` The job's output (first 10 MiB) is in ${info.logFile}: page it with the read tool.`
      }]`,
    );
  }
  return { text: shownToModel(stdout), notes };
}

function listResult(jobs: Job[]): ToolOutput {
  const infos = jobs.map((j) => j.info());
  const details: JobDetails = { jobs: infos };
  if (infos.length === 0) return { output: "No background jobs.", details };
  return { output: infos.map(stateLine).join("\n"), details };
}
