/**
 * The tool hosts of a run and the access they enforce. The run's grants and protected paths live
 * here; a change to them (an approval) makes the next request start a host that has it, while the
 * host it replaces finishes its calls and stops. A call with a "yes once" approval runs alone in
 * a host of its own, with the grants widened for it.
 */
import type { Grants, Protection } from "../policy/mod.ts";
import { JOB_ID_ARG, type ToolLocation, type ToolOutput, type ToolUpdate } from "../tools/mod.ts";
import { ToolHostClient } from "./host/client.ts";
import type { HostConnection } from "./host/connection.ts";
import type { GroupReaper } from "./ops.ts";
import { widenForApproval } from "./permissions.ts";

/** What a tool host enforces: the grants and the protected paths. */
export interface HostAccess {
  grants: Grants;
  protection: Protection;
}

/** Starts one tool host that enforces `access`. */
export type HostStarter = (access: HostAccess) => HostConnection;

/** One tool call sent to a host. */
export interface HostCall {
  toolCallId: string;
  signal: AbortSignal;
  onUpdate: (update: ToolUpdate) => void;
}

/** The run's tool hosts: the current one, those it replaced, and the per-call ones. */
export class ToolHosts {
  #start: HostStarter;
  #access: HostAccess;
  #generation = 0;
  #current: { client: ToolHostClient; generation: number };
  #retired: Promise<void>[] = [];
  #ephemeral = new Set<ToolHostClient>();
  /** Locations approved "once", by the call they were approved for. */
  #once = new Map<string, ToolLocation[]>();
  /** Programs allowed for the next bash call. */
  #nextBash: ToolLocation[] = [];
  #closing: Promise<void> | undefined;
  /** The host of each background job (by id), and the hosts holding jobs, kept until close. */
  #jobs = new Map<string, ToolHostClient>();
  #jobHosts = new Set<ToolHostClient>();
  #nextJob = 1;

  #startReaper: (() => GroupReaper | undefined) | undefined;
  /** Kills the jobs' groups should moat die (started with the first job; null: could not). */
  #reaper: GroupReaper | null | undefined;

  /**
   * With `startReaper`, each job's pid (its group's id) goes to a reaper: without bubblewrap the
   * jobs' groups are in moat's pid namespace, and nothing else ends them if moat is killed.
   */
  constructor(
    access: HostAccess,
    start: HostStarter,
    options: { startReaper?: () => GroupReaper | undefined } = {},
  ) {
    this.#start = start;
    this.#startReaper = options.startReaper;
    this.#access = access;
    this.#current = { client: this.#client(access), generation: 0 };
  }

  /** The run's grants as they are now (widened by approvals). */
  get grants(): Grants {
    return this.#access.grants;
  }

  /** The run's protected paths as they are now (only ever added to). */
  get protection(): Protection {
    return this.#access.protection;
  }

  /** Starts the current host now, so that it is ready before the first call. */
  warmUp(): void {
    this.#current.client.warmUp();
  }

  /** Replaces the grants (and the protection); the next request starts a host with them. */
  widen(grants: Grants, protection: Protection = this.#access.protection): void {
    this.#access = { grants, protection };
    this.#generation++;
  }

  /** The next request starts a new host with the same access (its view changed on disk). */
  restart(): void {
    this.#generation++;
  }

  /** The host of the current access; a new one when it changed (the old one drains first). */
  active(): ToolHostClient {
    if (this.#current.generation !== this.#generation) {
      // A host with background jobs lives on (for them) until the run ends.
      const old = this.#current.client;
      if (!this.#jobHosts.has(old)) this.#retired.push(old.closeWhenIdle());
      this.#current = { client: this.#client(this.#access), generation: this.#generation };
    }
    return this.#current.client;
  }

  /** `location` is allowed for the call `toolCallId` alone. */
  allowOnce(toolCallId: string, location: ToolLocation): void {
    this.#once.set(toolCallId, [...(this.#once.get(toolCallId) ?? []), location]);
  }

  /** The program `location` is allowed for the next bash call alone. */
  allowForNextBash(location: ToolLocation): void {
    this.#nextBash.push(location);
  }

  /** Runs the tool `name` in the host its call is allowed in; resolves to its output. */
  async execute(name: string, args: unknown, call: HostCall): Promise<ToolOutput> {
    const request = args as Record<string, unknown> | undefined;
    if (name === "job") {
      const id = request?.["id"];
      const client = typeof id === "string" ? this.#jobs.get(id) : undefined;
      if (client !== undefined) return await client.execute(name, args, call);
      if (request?.["action"] === "list" && this.#jobHosts.size > 1) {
        return await this.#listJobs(args, call);
      }
      return await (this.#jobHosts.values().next().value ?? this.active()).execute(
        name,
        args,
        call,
      );
    }
    if (name === "bash" && request?.["background"] === true) {
      // The run numbers its jobs, so that ids are unique across hosts and the same in a replay.
      const id = String(this.#nextJob++);
      return await this.#run(name, { ...request, [JOB_ID_ARG]: id }, call, id);
    }
    return await this.#run(name, args, call, undefined);
  }

  /** The states of the jobs of every host holding some. */
  async #listJobs(args: unknown, call: HostCall): Promise<ToolOutput> {
    const outputs = await Promise.all([...this.#jobHosts].map((c) => c.execute("job", args, call)));
    const jobs = outputs.flatMap((o) =>
      (o.details as { jobs?: unknown[] } | undefined)?.jobs ?? []
    );
    return { output: outputs.map((o) => o.output).join("\n"), details: { jobs } };
  }

  /** The states of the run's background jobs, as the job tool lists them; no host is started. */
  async listJobs(): Promise<string> {
    if (this.#jobHosts.size === 0) return "No background jobs.";
    const call: HostCall = {
      toolCallId: "moat-list-jobs",
      signal: new AbortController().signal,
      onUpdate: () => {},
    };
    return (await this.#listJobs({ action: "list" }, call)).output;
  }

  /**
   * Stops every background job of the run; resolves to the stops' results (`details.stopped`:
   * the job was still running).
   */
  async stopJobs(): Promise<ToolOutput[]> {
    const call: HostCall = {
      toolCallId: "moat-stop-jobs",
      signal: new AbortController().signal,
      onUpdate: () => {},
    };
    const stops: Promise<ToolOutput>[] = [];
    for (const [id, client] of this.#jobs) {
      stops.push(client.execute("job", { action: "stop", id }, call));
    }
    return await Promise.all(stops);
  }

  async #run(
    name: string,
    args: unknown,
    call: HostCall,
    jobId: string | undefined,
  ): Promise<ToolOutput> {
    const started = (client: ToolHostClient, output: ToolOutput): boolean => {
      const job = (output.details as { job?: { id?: unknown; pid?: unknown } } | undefined)?.job;
      if (jobId === undefined || job?.id !== jobId) return false;
      this.#jobs.set(jobId, client);
      this.#jobHosts.add(client);
      if (typeof job.pid === "number" && this.#startReaper !== undefined) {
        // Started once: a reaper that could not start is not tried again for every job.
        if (this.#reaper === undefined) this.#reaper = this.#startReaper() ?? null;
        this.#reaper?.add(job.pid);
      }
      return true;
    };
    if (name === "bash" && this.#nextBash.length > 0) {
      // Programs the user allowed "for the next bash call" after one was refused.
      for (const location of this.#nextBash.splice(0)) this.allowOnce(call.toolCallId, location);
    }
    const once = this.#once.get(call.toolCallId);
    if (once === undefined) {
      const client = this.active();
      const output = await client.execute(name, args, call);
      started(client, output);
      return output;
    }
    // A "yes once" approval: this call alone runs in a host with the widened grants.
    this.#once.delete(call.toolCallId);
    const grants = once.reduce(widenForApproval, this.#access.grants);
    const client = this.#client({ ...this.#access, grants });
    this.#ephemeral.add(client);
    let kept = false;
    try {
      const output = await client.execute(name, args, call);
      kept = started(client, output);
      return output;
    } finally {
      this.#ephemeral.delete(client);
      // A host that started a job lives on for it until the run ends.
      if (!kept) await client.close();
    }
  }

  /** Stops every host (and the processes in them). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all([
        this.#current.client.close(),
        ...[...this.#ephemeral].map((c) => c.close()),
        ...[...this.#jobHosts].map((c) => c.close()),
        ...this.#retired,
      ]);
      // The hosts stopped the jobs.
      await this.#reaper?.close();
    })();
    return this.#closing;
  }

  #client(access: HostAccess): ToolHostClient {
    return new ToolHostClient(() => this.#start(access));
  }
}
