/** Session files for tests: a header line, then one line per message, as moat writes them. */
import { SESSION_FORMAT_VERSION, type SessionHeader } from "../../src/session/store.ts";

/** A session header with fixed test values; `over` replaces or adds fields (even invalid ones). */
export function sessionHeader(over: Record<string, unknown> = {}): SessionHeader {
  return {
    type: "session",
    version: SESSION_FORMAT_VERSION,
    moatVersion: "0.1.0",
    createdAt: "2025-01-01T00:00:00.000Z",
    cwd: "/w",
    model: "m",
    grants: {},
    ...over,
  } as SessionHeader;
}

/** One message line of a session file. */
export function messageLine(message: unknown): string {
  return JSON.stringify({ type: "message", time: "2025-01-01T00:00:01.000Z", message });
}

/** A whole session file: `header` on line 1, message i on line i + 2, and a final newline. */
export function sessionText(
  messages: readonly unknown[],
  header: unknown = sessionHeader(),
): string {
  return [JSON.stringify(header), ...messages.map(messageLine)].join("\n") + "\n";
}
