/**
 * The raw body of a failed response, as the server sent it. The SDK reduces an error body to what
 * it parsed: an empty body becomes "400 status code (no body)", an HTML page or a stack trace
 * arrives whole as the message, and SDKs before the `{error}` wrapping of `makeStatusError` kept
 * only `body.error` (so flat vLLM/Mistral bodies, Gemini's arrays and FastAPI's `detail` were
 * lost). The `fetch` given to the SDK keeps the first 64 KiB of every non-2xx body, and
 * `rawErrorBody` finds it again from the headers the SDK's error carries; `_error_body.ts` then
 * reads the message out of it.
 */

/** The fetch signature the SDK calls. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What a failed response sent, as received. */
export interface RawErrorBody {
  /** The body's text (its first `MAX_ERROR_BODY_BYTES`, decoded leniently). */
  text: string;
  /** The body was longer than what was kept. */
  truncated: boolean;
  /** The `content-type` header, when sent. */
  contentType?: string;
}

/** How much of an error body is kept. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

// Keyed by the Headers object of the Response handed to the SDK, which the SDK passes on to the
// APIError it throws (`error.headers`): one entry per failed response, gone with it.
const bodies = new WeakMap<Headers, RawErrorBody>();

// Statuses whose responses cannot have a body (the Response constructor rejects one).
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A fetch that keeps the (bounded) body of each non-2xx response for `rawErrorBody`. */
export function rawErrorFetch(inner: Fetch = fetch): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok || NULL_BODY_STATUSES.has(response.status)) return response;
    const { text, truncated } = await readBounded(response, MAX_ERROR_BODY_BYTES);
    const headers = new Headers(response.headers);
    // The kept text is what the SDK reads now: its length and encoding differ from the original.
    headers.delete("content-length");
    headers.delete("content-encoding");
    const copy = new Response(text, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
    Object.defineProperty(copy, "url", { value: response.url });
    const contentType = headers.get("content-type") ?? undefined;
    bodies.set(copy.headers, {
      text,
      truncated,
      ...(contentType === undefined ? {} : { contentType }),
    });
    return copy;
  };
}

/** The body kept for the response whose headers an SDK error carries, or undefined. */
export function rawErrorBody(headers: Headers | undefined): RawErrorBody | undefined {
  return headers === undefined ? undefined : bodies.get(headers);
}

/** Reads at most `limit` bytes of a body, cancelling the rest; a body that fails keeps its start. */
async function readBounded(
  response: Response,
  limit: number,
): Promise<{ text: string; truncated: boolean }> {
  if (response.body === null) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = limit - size;
      if (value.byteLength > room) {
        chunks.push(value.subarray(0, room));
        size = limit;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // What arrived before the connection broke is still the server's word.
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { text: new TextDecoder().decode(bytes), truncated };
}
