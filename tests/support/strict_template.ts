/**
 * What a strict chat template refuses, as the servers check it: mistral-common's
 * `_validate_message_order` (Mistral's API, vLLM `--tokenizer-mode mistral`: "Unexpected role
 * 'user' after role 'tool'"), the Mistral/Llama GGUF templates llama.cpp renders with `--jinja`
 * ("After the optional system message, conversation roles must alternate
 * user/assistant/user/assistant/...", "System message must be first"), and Mistral's id rule
 * ("Tool call id was X but must be a-z, A-Z, 0-9, with a length of 9").
 */
import { type FakeStatus, fault, type RecordedRequest, type Step } from "./fake_openai.ts";

/** A wire message as these checks read it. */
interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string }>;
  tool_call_id?: string;
}

/** The roles mistral-common accepts after each role. */
const NEXT: Record<string, readonly string[]> = {
  start: ["system", "user"],
  system: ["user"],
  user: ["assistant"],
  assistant: ["user"],
  assistantCalls: ["tool"],
  tool: ["tool", "assistant"],
};

/** Each way `messages` breaks a strict template, empty when it renders. */
export function strictTemplateProblems(
  messages: readonly WireMessage[],
  options: { alnum9Ids?: boolean } = {},
): string[] {
  const problems: string[] = [];
  const offered = new Set<string>();
  let previous = "start";
  for (const [i, m] of messages.entries()) {
    if (m.role === "system" && i > 0) problems.push(`message ${i}: system message must be first`);
    const role = m.role === "system" && i > 0 ? "user" : m.role;
    if (!(NEXT[previous] ?? []).includes(role)) {
      problems.push(`message ${i}: unexpected role '${m.role}' after role '${previous}'`);
    }
    const calls = m.tool_calls ?? [];
    if (role === "assistant") {
      const empty = m.content === null || m.content === undefined ||
        (calls.length === 0 && m.content === "");
      if (empty) problems.push(`message ${i}: assistant message without content`);
      for (const call of calls) offered.add(call.id);
    }
    const ids = role === "tool" ? [m.tool_call_id ?? ""] : calls.map((c) => c.id);
    for (const id of ids) {
      if (options.alnum9Ids && !/^[A-Za-z0-9]{9}$/.test(id)) {
        problems.push(`message ${i}: tool call id was ${id} but must be a-z, A-Z, 0-9, length 9`);
      }
      if (role === "tool" && !offered.has(id)) {
        problems.push(`message ${i}: tool_call_id ${id} answers no call`);
      }
    }
    previous = role === "assistant" && calls.length > 0 ? "assistantCalls" : role;
  }
  if (!["user", "tool"].includes(previous)) {
    problems.push(`the last message is '${previous}': expected user or tool`);
  }
  return problems;
}

/**
 * A step that plays `next` when the request renders under a strict template, else llama.cpp's 500
 * for a template exception (tools/server: `{"error":{"code":500,"message":…}}`).
 */
export function strictTemplate(
  next: (request: RecordedRequest) => Step,
  options: { alnum9Ids?: boolean; seen?: string[][] } = {},
): (request: RecordedRequest) => Step {
  return (request) => {
    const problems = strictTemplateProblems(request.body?.messages ?? [], options);
    options.seen?.push(problems);
    if (problems.length === 0) return next(request);
    const status: FakeStatus = fault.status(500, {
      message: "After the optional system message, conversation roles must alternate " +
        `user/assistant/user/assistant/...: ${problems.join("; ")}`,
      type: "server_error",
    });
    return status;
  };
}
