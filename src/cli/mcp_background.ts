/**
 * MCP servers start in the background while the run goes on: what the model is told when it calls
 * a tool of a server that is not offering it yet, and the warnings held back until the reporter
 * starts (`run_start` stays the first JSONL line).
 */
import type { McpServerStatus } from "../mcp/mod.ts";

/**
 * Why the MCP tool `name` was not among a request's tools, when its server says: still starting,
 * offering it since the request was sent, or failed. Undefined for other names.
 */
export function unofferedMcpToolReason(
  statuses: readonly McpServerStatus[],
  name: string,
): string | undefined {
  // The longest server name wins: "a__b__c" belongs to a server "a__b" before one named "a".
  let status: McpServerStatus | undefined;
  for (const s of statuses) {
    if (name.startsWith(`${s.name}__`) && s.name.length > (status?.name.length ?? -1)) status = s;
  }
  if (status === undefined) return undefined;
  const server = `MCP server "${status.name}"`;
  switch (status.state) {
    case "starting":
      // A restarting server keeps its tools offered: only a first start has none yet.
      return status.tools.length === 0
        ? `${server} is still starting; its tools are offered once it is ready`
        : undefined;
    case "ready":
    case "crashed":
      return status.tools.includes(name)
        ? `${server} started offering it after this request was sent; it is offered from ` +
          "the next request on"
        : undefined;
    case "failed":
      return `${server} ${status.error ?? "failed"}; its tools are unavailable`;
    default: {
      const never: never = status.state;
      return never;
    }
  }
}

/** Warnings held until the reporter's start, then passed straight on. */
export interface HeldWarnings {
  /** Holds `message` before `release()`, reports it after. */
  warn(message: string): void;
  /** The warnings held so far (report them right after the reporter's start); later ones go on. */
  release(): string[];
}

/** Holds warnings until `release()`, then sends them to `report`. */
export function holdWarnings(report: (message: string) => void): HeldWarnings {
  let held: string[] | undefined = [];
  return {
    warn(message) {
      if (held === undefined) report(message);
      else held.push(message);
    },
    release() {
      const out = held ?? [];
      held = undefined;
      return out;
    },
  };
}
