/**
 * Interactive approval of a call the grants do not cover: the question, the answer parser and a
 * line-based prompter over injected I/O (the CLI passes its TTY; tests pass scripted answers).
 */
import { dirname } from "node:path";
import type { ToolLocation } from "../agent/tool.ts";

/**
 * The user's answer: allow this call, allow for the rest of the run, allow the path's whole
 * directory for the rest of the run (paths only), or deny.
 */
export type Approval = "once" | "always" | "directory" | "deny";

/** What needs approval. */
export interface ApprovalRequest {
  toolName: string;
  /** What the call touches; absent for a call that is approved as a whole (an MCP tool). */
  location?: ToolLocation;
  /** The exact question to show (from `approvalQuestion`). */
  question: string;
  /** The call's validated arguments, to show what it would change (a write's or edit's diff). */
  args?: unknown;
  /**
   * Reads a file for that diff as the tools may read it: its bytes, null when it does not exist;
   * throws FsError "not_granted" for what the user did not allow to be read. Absent: no diff.
   */
  readFile?: (absPath: string) => Promise<Uint8Array | null>;
}

/** What PermissionRequest hooks answered: deny with a reason, allow for the run, or nothing. */
export type HookAnswer = { decision: "deny"; reason: string } | { decision: "always" } | undefined;

/**
 * Asks the PermissionRequest hooks about an access the grants leave open, before the user is
 * asked (or, without anyone to ask, instead of the silent denial); must resolve.
 */
export type PermissionHook = (
  request: ApprovalRequest & { toolCallId: string; args: unknown },
) => Promise<HookAnswer>;

/**
 * Asks the PermissionRequest hooks about each item in turn (`allowed` runs as each is allowed
 * for the run): the first denial's item and reason, or the items no hook answered.
 */
export async function askPermissionHooks<T>(
  hook: PermissionHook,
  items: readonly T[],
  options: {
    request: (item: T) => Parameters<PermissionHook>[0];
    allowed: (item: T) => void | Promise<void>;
  },
): Promise<{ left: T[] } | { denied: T; reason: string }> {
  const left: T[] = [];
  for (const item of items) {
    const answer = await hook(options.request(item));
    if (answer?.decision === "deny") return { denied: item, reason: answer.reason };
    if (answer?.decision === "always") await options.allowed(item);
    else left.push(item);
  }
  return { left };
}

/** Asks the user; must resolve (a closed input means "deny"). */
export interface Prompter {
  ask(request: ApprovalRequest): Promise<Approval>;
}

/** The verb and target of a location, e.g. `["write", "/etc/hosts"]`. */
export function describeLocation(location: ToolLocation): { verb: string; target: string } {
  switch (location.access) {
    case "read":
      return { verb: "read", target: location.path };
    case "write":
      return { verb: "write", target: location.path };
    case "run":
      return { verb: "run", target: location.program };
    case "net":
      return { verb: "connect to", target: location.host };
    default: {
      const never: never = location;
      return { verb: "use", target: JSON.stringify(never) };
    }
  }
}

/**
 * `moat wants to write /etc/hosts (edit). Allow? [y]es once / [a]lways this run / [d]irectory
 * /etc this run / [N]o (Enter)`; the directory choice only for paths.
 */
export function approvalQuestion(toolName: string, location: ToolLocation): string {
  const { verb, target } = describeLocation(location);
  const directory = "path" in location && location.path !== "/"
    ? ` / [d]irectory ${dirname(location.path)} this run`
    : "";
  return `moat wants to ${verb} ${target} (${toolName}). Allow? [y]es once / [a]lways this run` +
    `${directory} / [N]o (Enter)`;
}

/**
 * Parses an answer; undefined when it is not one of y/yes, a/always, d/directory (only when
 * `directory` is offered), n/no (empty = no).
 */
export function parseApprovalAnswer(
  text: string,
  options: { directory?: boolean } = {},
): Approval | undefined {
  const answer = text.trim().toLowerCase();
  if (answer === "y" || answer === "yes") return "once";
  if (answer === "a" || answer === "always") return "always";
  if (options.directory && (answer === "d" || answer === "dir" || answer === "directory")) {
    return "directory";
  }
  if (answer === "n" || answer === "no" || answer === "") return "deny";
  return undefined;
}

/** Line I/O for `createLinePrompter`. */
export interface PrompterIo {
  write(text: string): void;
  /** Resolves to the next line, or null when input is closed. */
  readLine(): Promise<string | null>;
}

/** A prompter that writes the question and reads answers (asks again up to 3 times). */
export function createLinePrompter(io: PrompterIo): Prompter {
  return {
    async ask(request) {
      io.write(request.question + " ");
      const directory = request.location !== undefined && "path" in request.location &&
        request.location.path !== "/";
      for (let attempt = 0; attempt < 3; attempt++) {
        const line = await io.readLine();
        if (line === null) return "deny";
        const answer = parseApprovalAnswer(line, { directory });
        if (answer !== undefined) return answer;
        io.write(
          `Please answer y (yes, once), a (always this run)${
            directory ? ", d (the directory, this run)" : ""
          } or n (no): `,
        );
      }
      return "deny";
    },
  };
}
