/**
 * What an event stream said outside SSE's framing: Ollama writes a runner error as a bare JSON
 * line into the stream (`BaseWriter.writeError`, middleware/openai.go) and old llama.cpp as an
 * `error: {…}` field; SSE parsers, the SDK's included, drop both, so the stream just ends. A fetch
 * that passes every byte on and keeps the last such error's message, per response.
 */

/** The error a stream carried outside SSE framing, once seen. */
export interface StrayError {
  message: string | undefined;
}

/** Longest line kept while looking for a stray error (longer ones are passed on, unread). */
const MAX_LINE = 65_536;
/** Lines SSE defines: fields, comments, blank lines. Anything else is stray. */
const SSE_LINE = /^(data|event|id|retry)(:|$)|^:|^$/;

/** The message of a stray line (`{"error":…}` JSON or an `error:` field), if it is an error. */
export function strayErrorMessage(line: string): string | undefined {
  const text = line.startsWith("error:") ? line.slice("error:".length).trim() : line.trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return line.startsWith("error:") && text !== "" ? text : undefined;
  }
  const body = value as { error?: unknown; message?: unknown } | null;
  if (typeof body !== "object" || body === null) return undefined;
  const error = body.error ?? (line.startsWith("error:") ? body : undefined);
  if (typeof error === "string" && error !== "") return error;
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === "string" && message !== "" ? message : undefined;
}

/**
 * Wraps `inner` so that event-stream responses are scanned as they are read; `seen` maps each
 * such response (the object the SDK gets) to what it carried outside SSE.
 */
export function tapEventStreams(
  inner: typeof fetch,
  seen: WeakMap<Response, StrayError>,
): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const type = response.headers.get("content-type") ?? "";
    if (!response.ok || response.body === null || !type.includes("text/event-stream")) {
      return response;
    }
    const stray: StrayError = { message: undefined };
    const tapped = new Response(response.body.pipeThrough(scanner(stray)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    seen.set(tapped, stray);
    return tapped;
  };
}

function scanner(stray: StrayError): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let line = "";
  const look = () => {
    const text = line.replace(/\r$/, "");
    if (!SSE_LINE.test(text)) stray.message = strayErrorMessage(text) ?? stray.message;
  };
  return new TransformStream({
    transform(bytes, controller) {
      controller.enqueue(bytes);
      const parts = decoder.decode(bytes, { stream: true }).split("\n");
      for (let i = 0; i < parts.length - 1; i++) {
        line = (line + parts[i]).slice(0, MAX_LINE);
        look();
        line = "";
      }
      line = (line + parts[parts.length - 1]).slice(0, MAX_LINE);
    },
    flush() {
      line += decoder.decode();
      if (line !== "") look();
    },
  });
}
