/**
 * moat's approval questions asked through the editor: a Prompter (src/policy/approve.ts) whose
 * answers come from `session/request_permission`, so the editor's choice goes through the same
 * approval code as a terminal answer. No answer, a cancelled request or an error = deny.
 */
import { dirname } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { Approval, ApprovalRequest, Prompter } from "../policy/approve.ts";
import { describeLocation } from "../policy/approve.ts";
import { toolKind } from "./updates.ts";

/** The call a question is about, as the editor knows it (from its `tool_call` update). */
export interface PendingCall {
  toolCallId: string;
  title: string;
}

/** What the prompter needs: the way to ask, the session, and the call being decided. */
export interface EditorPrompterOptions {
  request(
    params: acp.RequestPermissionRequest,
    signal?: AbortSignal,
  ): Promise<acp.RequestPermissionResponse>;
  sessionId: string;
  /** The call being decided (else the latest registered call of this tool). */
  callOf(toolName: string): PendingCall | undefined;
  /** The prompt turn's signal: a cancelled turn answers deny. */
  signal(): AbortSignal | undefined;
}

/** The options offered for a request: allow once, always (this run), the directory, reject. */
export function permissionOptions(request: ApprovalRequest): acp.PermissionOption[] {
  const options: acp.PermissionOption[] = [
    { optionId: "once", name: "Allow once", kind: "allow_once" },
    { optionId: "always", name: "Allow always (this run)", kind: "allow_always" },
  ];
  const location = request.location;
  if (location !== undefined && "path" in location && location.path !== "/") {
    options.push({
      optionId: "directory",
      name: `Allow the directory ${dirname(location.path)} (this run)`,
      kind: "allow_always",
    });
  }
  options.push({ optionId: "deny", name: "Deny", kind: "reject_once" });
  return options;
}

/** The approval an editor's response means (anything unknown = deny). */
export function approvalOf(
  response: acp.RequestPermissionResponse,
  offered: readonly acp.PermissionOption[],
): Approval {
  if (response.outcome.outcome !== "selected") return "deny";
  const id = response.outcome.optionId;
  if (!offered.some((o) => o.optionId === id)) return "deny";
  return id === "once" || id === "always" || id === "directory" ? id : "deny";
}

/** A Prompter that asks the editor. */
export function createEditorPrompter(options: EditorPrompterOptions): Prompter {
  let synthetic = 0;
  return {
    async ask(request) {
      const signal = options.signal();
      if (signal?.aborted) return "deny";
      const offered = permissionOptions(request);
      const call = options.callOf(request.toolName);
      const target = request.location === undefined ? request.toolName : (() => {
        const { verb, target } = describeLocation(request.location);
        return `${verb} ${target}`;
      })();
      const params: acp.RequestPermissionRequest = {
        sessionId: options.sessionId,
        toolCall: {
          toolCallId: call?.toolCallId ?? `moat-permission-${++synthetic}`,
          title: call?.title ?? `${request.toolName}: ${target}`,
          kind: toolKind(request.toolName),
          content: [{ type: "content", content: { type: "text", text: request.question } }],
        },
        options: offered,
      };
      try {
        return approvalOf(await options.request(params, signal), offered);
      } catch {
        // The editor failed or went away: it did not say yes.
        return "deny";
      }
    },
  };
}
