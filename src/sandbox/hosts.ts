/**
 * The tool hosts of a run and the access they enforce. The run's grants and protected paths live
 * here; a change to them (an approval) makes the next request start a host that has it, while the
 * host it replaces finishes its calls and stops. A call with a "yes once" approval runs alone in
 * a host of its own, with the grants widened for it.
 */
import type { Grants, Protection } from "../policy/mod.ts";
import type { ToolLocation, ToolOutput, ToolUpdate } from "../tools/mod.ts";
import { ToolHostClient } from "./host/client.ts";
import type { HostConnection } from "./host/connection.ts";
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

  constructor(access: HostAccess, start: HostStarter) {
    this.#start = start;
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
      this.#retired.push(this.#current.client.closeWhenIdle());
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
    if (name === "bash" && this.#nextBash.length > 0) {
      // Programs the user allowed "for the next bash call" after one was refused.
      for (const location of this.#nextBash.splice(0)) this.allowOnce(call.toolCallId, location);
    }
    const once = this.#once.get(call.toolCallId);
    if (once === undefined) return await this.active().execute(name, args, call);
    // A "yes once" approval: this call alone runs in a host with the widened grants.
    this.#once.delete(call.toolCallId);
    const grants = once.reduce(widenForApproval, this.#access.grants);
    const client = this.#client({ ...this.#access, grants });
    this.#ephemeral.add(client);
    try {
      return await client.execute(name, args, call);
    } finally {
      this.#ephemeral.delete(client);
      await client.close();
    }
  }

  /** Stops every host (and the processes in them). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all([
        this.#current.client.close(),
        ...[...this.#ephemeral].map((c) => c.close()),
        ...this.#retired,
      ]);
    })();
    return this.#closing;
  }

  #client(access: HostAccess): ToolHostClient {
    return new ToolHostClient(() => this.#start(access));
  }
}
