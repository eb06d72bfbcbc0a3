/**
 * The server's context window for the configured model, from its metadata: the model's
 * `/v1/models` entry, and for llama.cpp (whose entry may lack it) the server's `/props`.
 */
import type OpenAI from "openai";
import { isRecord, windowFromLlamaProps, windowFromModelInfo } from "../context_window.ts";

/** Metadata calls are quick or useless: one attempt, and a short wait for the headers. */
const METADATA_TIMEOUT_MS = 5_000;

/** The entry of `model`, or the only entry when the server lists exactly one. */
function entryFor(entries: readonly unknown[], model: string): unknown {
  const exact = entries.find((entry) => isRecord(entry) && entry.id === model);
  if (exact !== undefined) return exact;
  return entries.length === 1 ? entries[0] : undefined;
}

function looksLikeLlamaCpp(entry: unknown): boolean {
  return isRecord(entry) && (entry.owned_by === "llamacpp" || isRecord(entry.meta));
}

/** `http://host:8080/v1` → `http://host:8080`: llama.cpp serves `/props` outside the API path. */
function serverRoot(baseURL: string): string {
  return baseURL.replace(/\/+$/, "").replace(/\/v1$/, "");
}

/** What the server said about itself: the model's `/v1/models` entry, llama.cpp's `/props`. */
export interface ServerInfo {
  /** The model's entry (or the only one listed); undefined when none was found. */
  entry?: unknown;
  /** llama.cpp's `/props`, when the entry looked like llama.cpp's and had no window. */
  props?: unknown;
  /** The context window either states. */
  window?: number;
}

/**
 * What `sdk`'s server states about `model` (see `windowFromModelInfo` and
 * `windowFromLlamaProps`); never throws (any failure or abort leaves fields out).
 */
export async function fetchServerInfo(
  sdk: OpenAI,
  model: string,
  options: { baseURL: string; signal?: AbortSignal },
): Promise<ServerInfo> {
  const request = {
    maxRetries: 0,
    timeout: METADATA_TIMEOUT_MS,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const info: ServerInfo = {};
  try {
    if (options.signal?.aborted) return info;
    // The first page only: OpenAI-compatible servers list every model on it, and the raw
    // entries keep the server's extra fields.
    const page = await sdk.models.list(request);
    const entry = entryFor(page.data, model);
    if (entry === undefined) return info;
    info.entry = entry;
    const window = windowFromModelInfo(entry);
    if (window !== undefined) info.window = window;
    if (window !== undefined || !looksLikeLlamaCpp(entry)) return info;
    const props = await sdk.get<unknown>(`${serverRoot(options.baseURL)}/props`, request);
    info.props = props;
    const fromProps = windowFromLlamaProps(props);
    if (fromProps !== undefined) info.window = fromProps;
    return info;
  } catch {
    // Metadata is optional: a server without it, unreachable or slow, just has no known window.
    return info;
  }
}

/** The context window `sdk`'s server states for `model`, or undefined; never throws. */
export async function fetchContextWindow(
  sdk: OpenAI,
  model: string,
  options: { baseURL: string; signal?: AbortSignal },
): Promise<number | undefined> {
  return (await fetchServerInfo(sdk, model, options)).window;
}
