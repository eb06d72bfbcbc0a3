/**
 * The project trust question asked through the editor (`session/request_permission`): at once on
 * `session/load`, at a new session's first prompt (the editor knows a session only from its
 * response). Trust it from now on, for this session, or not; no answer, a cancelled request or an
 * error = not trusted (its sensitive settings are ignored).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { TrustAnswer, TrustRequest } from "../cli/trust.ts";

/** The id of the question's (synthetic) call: the editor shows it as a call of its own. */
export const TRUST_CALL_ID = "moat-project-trust";

/** The options of the trust question. */
export const TRUST_OPTIONS: acp.PermissionOption[] = [
  { optionId: "remember", name: "Trust this project from now on", kind: "allow_always" },
  { optionId: "once", name: "Trust it for this session", kind: "allow_once" },
  { optionId: "ignore", name: "Don't trust it (ignore its settings)", kind: "reject_once" },
];

/**
 * The question: what the project sets (in each of its files that asked: its config, its
 * deno.json's permission set), and that only a trusted repository should be trusted.
 */
export function trustRequest(
  sessionId: string,
  request: TrustRequest | readonly TrustRequest[],
): acp.RequestPermissionRequest {
  const requests: readonly TrustRequest[] = "root" in request ? [request] : request;
  const files = requests.map((r) =>
    `The project config "${r.configFile}" sets what only a trusted project may set:\n` +
    r.settings.map((s) => `- ${s.key}: ${s.value}`).join("\n")
  );
  return {
    sessionId,
    toolCall: {
      toolCallId: TRUST_CALL_ID,
      title: `Trust the project "${requests[0]?.root ?? ""}"?`,
      kind: "other",
      content: [{
        type: "content",
        content: {
          type: "text",
          text: `${files.join("\n")}\nTrust this project only if you trust its repository.`,
        },
      }],
    },
    options: TRUST_OPTIONS,
  };
}

/** The trust answer an editor's response means (anything else = ignore). */
export function trustAnswerOf(response: acp.RequestPermissionResponse): TrustAnswer {
  if (response.outcome.outcome !== "selected") return "ignore";
  const id = response.outcome.optionId;
  return id === "remember" || id === "once" ? id : "ignore";
}

/** Asks the trust question in session `sessionId` through `request`. */
export function editorTrust(
  sessionId: string,
  request: (params: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse>,
): (question: TrustRequest) => Promise<TrustAnswer> {
  return async (question) => {
    try {
      return trustAnswerOf(await request(trustRequest(sessionId, question)));
    } catch {
      // The editor failed or went away: it did not say yes.
      return "ignore";
    }
  };
}
