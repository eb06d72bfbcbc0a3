/**
 * The provider's message in an error body of any shape servers send: OpenAI's
 * `{"error":{"message":…}}`, vLLM's and Mistral's flat `{"object":"error","message":…}` (Mistral's
 * `message` may itself be a FastAPI `{"detail":[…]}`), Gemini's JSON array
 * `[{"error":{…}}]`, FastAPI's `{"detail":[{"loc":…,"msg":…}]}` and `{"detail":"…"}`, LM
 * Studio's and Ollama's `{"error":"…"}`, plain text (its first line) and HTML (its title). Pure.
 */
import { isRecord } from "../context_window.ts";

/** A body read for its message. */
export interface ErrorBodyReading {
  /** The provider's message, bounded; "" when the body had none (e.g. it was empty). */
  message: string;
  /** The parsed JSON body, when it was JSON. */
  json?: unknown;
  /** The inner error object (`error`, or the flat body itself), for its fields (code, n_ctx). */
  error?: Record<string, unknown>;
  /** The message is moat's summary of a body in no known shape (an HTML page, unknown JSON). */
  guessed?: true;
}

/** The longest provider message shown. */
const MAX_MESSAGE_CHARS = 600;
/** FastAPI validation entries shown, of all that came. */
const MAX_DETAIL_ENTRIES = 5;

/** Reads the message of an error body (`contentType` tells HTML from text). */
export function readErrorBody(text: string, contentType?: string): ErrorBodyReading {
  const trimmed = text.trim();
  if (trimmed === "") return { message: "" };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    const html = isHtml(trimmed, contentType);
    return {
      message: bound(html ? htmlMessage(trimmed) : firstLine(trimmed)),
      ...(html ? { guessed: true } : {}),
    };
  }
  const error = errorObject(json);
  const message = messageOf(json, 0);
  return {
    message: bound(message ?? compactJson(json)),
    json,
    ...(error === undefined ? {} : { error }),
    ...(message === undefined ? { guessed: true } : {}),
  };
}

/** The object that holds the error's fields: `error` when it is one, else a flat body. */
function errorObject(json: unknown): Record<string, unknown> | undefined {
  const first = Array.isArray(json) ? json[0] : json;
  if (!isRecord(first)) return undefined;
  return isRecord(first.error) ? first.error : first;
}

/** The message in a JSON value, looking through the shapes servers use; undefined if none. */
function messageOf(value: unknown, depth: number): string | undefined {
  if (depth > 4) return undefined;
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim();
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every(isValidationEntry)) return validationMessage(value);
    return value.length === 0 ? undefined : messageOf(value[0], depth + 1);
  }
  if (!isRecord(value)) return undefined;
  for (const key of ["error", "message", "detail", "msg", "error_message", "errors"]) {
    if (!(key in value)) continue;
    const found = messageOf(value[key], depth + 1);
    if (found !== undefined) return withStatus(found, value);
  }
  return undefined;
}

/** Gemini names a status beside its message ("INVALID_ARGUMENT"): keep it, it says the cause. */
function withStatus(message: string, holder: Record<string, unknown>): string {
  const status = holder.status;
  return typeof status === "string" && /^[A-Z_]{3,}$/.test(status) && !message.includes(status)
    ? `${message} (${status})`
    : message;
}

interface ValidationEntry {
  loc?: unknown;
  msg: string;
}

function isValidationEntry(value: unknown): value is ValidationEntry {
  return isRecord(value) && typeof value.msg === "string";
}

/** FastAPI/pydantic entries as "messages.0.name: Extra inputs are not permitted; …". */
function validationMessage(entries: readonly ValidationEntry[]): string {
  const shown = entries.slice(0, MAX_DETAIL_ENTRIES).map((entry) => {
    const loc = Array.isArray(entry.loc)
      ? entry.loc.filter((part) => part !== "body").map(String).join(".")
      : "";
    return loc === "" ? entry.msg : `${loc}: ${entry.msg}`;
  });
  const more = entries.length - shown.length;
  return shown.join("; ") + (more > 0 ? ` (and ${more} more)` : "");
}

function isHtml(text: string, contentType?: string): boolean {
  return /html/i.test(contentType ?? "") || /^<(!doctype|html|head|body|\?xml)/i.test(text);
}

/** An HTML page's title, else its first line of text. */
function htmlMessage(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
  if (title) return `${decodeEntities(title)} (an HTML page)`;
  const body = text.replace(/<(script|style)[^>]*>[^]*?<\/\1>/gi, " ").replace(/<[^>]*>/g, "\n");
  return `${decodeEntities(firstLine(body))} (an HTML page)`;
}

function firstLine(text: string): string {
  return text.split(/\r?\n/).map((line) => line.trim()).find((line) => line !== "") ?? "";
}

function decodeEntities(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[name] ?? "",
  );
}

function compactJson(json: unknown): string {
  return JSON.stringify(json) ?? "";
}

function bound(message: string): string {
  // deno-lint-ignore no-control-regex
  const clean = message.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");
  return clean.length <= MAX_MESSAGE_CHARS ? clean : `${clean.slice(0, MAX_MESSAGE_CHARS)}…`;
}
