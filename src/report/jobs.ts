/**
 * The background jobs of a run as events (`job_start`, `job_exit`), read off the results of the
 * calls that start, read and stop them and off the stops at the end of the run.
 */
import type { AgentEvent } from "../agent/mod.ts";
import type { JobDetails, JobInfo } from "../tools/mod.ts";
import type { JobEnd, JobEvent, Reporter } from "./mod.ts";

export type { JobEnd, JobEvent };

/** Lines and characters of a job's last lines kept in `job_exit`. */
const JOB_LAST_LINES = 20;
const JOB_LAST_CHARS = 2000;

/** Turns the events of a run's calls into job events, each job's start and exit once. */
export class JobEvents {
  /** The starting call of each job seen, by id; removed when its exit is reported. */
  readonly #running = new Map<string, string>();

  /** The job events `event` tells of (a started job, or jobs seen ended). */
  fromEvent(event: AgentEvent): JobEvent[] {
    if (event.type !== "tool_end" || event.result.isError) return [];
    const details = event.result.details as JobDetails | undefined;
    if (event.name === "bash") {
      const job = details?.job;
      if (job === undefined || this.#running.has(job.id)) return [];
      this.#running.set(job.id, event.toolCallId);
      const start: JobEvent = {
        type: "job_start",
        id: job.id,
        command: job.command,
        toolCallId: event.toolCallId,
      };
      return [start, ...this.#ended([job], "exited")];
    }
    if (event.name !== "job") return [];
    const infos = details?.jobs ?? (details?.job === undefined ? [] : [details.job]);
    return this.#ended(infos, details?.stopped === true ? "stopped" : "exited");
  }

  /**
   * The exits of the jobs still running when the run ended: `details` are those of the stops
   * (`stopped: true` for the jobs they stopped, the others had ended by themselves).
   */
  atRunEnd(details: ReadonlyArray<JobDetails | undefined>): JobEvent[] {
    return details.flatMap((d) =>
      d?.job === undefined ? [] : this.#ended([d.job], d.stopped === true ? "run_end" : "exited")
    );
  }

  #ended(infos: readonly JobInfo[], end: JobEnd): JobEvent[] {
    return infos.flatMap((info) => {
      const toolCallId = this.#running.get(info.id);
      if (info.state === "running" || toolCallId === undefined) return [];
      this.#running.delete(info.id);
      return [{
        type: "job_exit" as const,
        id: info.id,
        command: info.command,
        toolCallId,
        // A job stopped by an earlier stop and only now seen is the model's stop.
        end: info.state === "stopped" && end === "exited" ? "stopped" : end,
        exitCode: info.exitCode,
        signal: info.signal,
        lastLines: lastLines(info.lastLines),
      }];
    });
  }
}

function lastLines(text: string): string {
  const lines = text.replace(/\n$/, "").split("\n").slice(-JOB_LAST_LINES).join("\n");
  return lines.length > JOB_LAST_CHARS ? lines.slice(-JOB_LAST_CHARS) : lines;
}

/** A reporter that also tells `reporter.job` the job events of the run's events. */
export function withJobEvents(reporter: Reporter, jobs: JobEvents): Reporter {
  if (reporter.job === undefined) return reporter;
  const job = reporter.job.bind(reporter);
  return {
    ...reporter,
    event(event) {
      reporter.event(event);
      for (const e of jobs.fromEvent(event)) job(e);
    },
  };
}
