/**
 * The project trust question asked through the editor (`session/request_permission`, where the
 * protocol has a session to ask in): trust the project from now on, apply its settings for this
 * session, or ignore them. No answer, a cancelled request or an error = ignore them.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { TrustAnswer, TrustRequest } from "../cli/trust.ts";

/** The id of the question's (synthetic) call: the editor shows it as a call of its own. */
export const TRUST_CALL_ID = "moat-project-trust";

/** The options of the trust question. */
export const TRUST_OPTIONS: acp.PermissionOption[] = [
  { optionId: "remember", name: "Trust this project from now on", kind: "allow_always" },
  { optionId: "once", name: "Apply them for this session", kind: "allow_once" },
  { optionId: "ignore", name: "Ignore them", kind: "reject_once" },
];

/** The question: what the project sets, and that only a trusted repository should be trusted. */
export function trustRequest(
  sessionId: string,
  request: TrustRequest,
): acp.RequestPermissionRequest {
  const settings = request.settings.map((s) => `- ${s.key}: ${s.value}`).join("\n");
  return {
    sessionId,
    toolCall: {
      toolCallId: TRUST_CALL_ID,
      title: `Trust the project "${request.root}"?`,
      kind: "other",
      content: [{
        type: "content",
        content: {
          type: "text",
          text: `The project config "${request.configFile}" sets what only a trusted project ` +
            `may set:\n${settings}\nTrust this project only if you trust its repository.`,
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
