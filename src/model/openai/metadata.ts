/**
 * The server's context window for the configured model, from its metadata: the model's
 * `/v1/models` entry, and for llama.cpp (whose entry may lack it) the server's `/props`; and
 * Ollama's `/api/version` when nothing else names the server.
 */
import type OpenAI from "openai";
import { isRecord, windowFromLlamaProps, windowFromModelInfo } from "../context_window.ts";
import { ollamaVersionOf, profileFromModelEntry } from "../profiles/mod.ts";

/** Metadata calls are quick or useless: one attempt, and a short wait for the headers. */
export const METADATA_TIMEOUT_MS = 5_000;

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
  /** The version Ollama's `/api/version` states, when it was asked (see `identify`). */
  ollamaVersion?: string;
  /** The context window either states. */
  window?: number;
  /** What `/v1/models` failed with (unreachable, rejected): the server said nothing. */
  failure?: unknown;
}

/** Options of `fetchServerInfo`. */
export interface ServerInfoOptions {
  baseURL: string;
  signal?: AbortSignal;
  /**
   * Nothing named the server yet: when its model entry names no family either, ask Ollama's
   * `/api/version` (Ollama's entries say only the model's namespace, "library" or a user's).
   */
  identify?: boolean;
}

/**
 * What `sdk`'s server states about `model` (see `windowFromModelInfo` and
 * `windowFromLlamaProps`); never throws: an abort or a failing optional call leaves fields
 * out, and what `/v1/models` failed with is kept in `failure`.
 */
export async function fetchServerInfo(
  sdk: OpenAI,
  model: string,
  options: ServerInfoOptions,
): Promise<ServerInfo> {
  const request = {
    maxRetries: 0,
    timeout: METADATA_TIMEOUT_MS,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const info: ServerInfo = {};
  if (options.signal?.aborted) return info;
  let entries: readonly unknown[];
  try {
    // The first page only: OpenAI-compatible servers list every model on it, and the raw
    // entries keep the server's extra fields.
    const data: unknown = (await sdk.models.list(request)).data;
    entries = Array.isArray(data) ? data : [];
  } catch (error) {
    // Metadata is optional: a server without it, unreachable or slow, just has no known window.
    if (!options.signal?.aborted) info.failure = error;
    return info;
  }
  const entry = entryFor(entries, model);
  if (entry !== undefined) info.entry = entry;
  const window = windowFromModelInfo(entry);
  if (window !== undefined) info.window = window;
  const root = serverRoot(options.baseURL);
  if (window === undefined && looksLikeLlamaCpp(entry)) {
    const props = await optionalGet(sdk, `${root}/props`, request);
    if (props !== undefined) info.props = props;
    const fromProps = windowFromLlamaProps(props);
    if (fromProps !== undefined) info.window = fromProps;
  }
  if (options.identify === true && profileFromModelEntry(entry) === undefined) {
    const version = ollamaVersionOf(await optionalGet(sdk, `${root}/api/version`, request));
    if (version !== undefined) info.ollamaVersion = version;
  }
  return info;
}

/** The JSON body `url` answers, or undefined on any failure (a 404, not JSON, unreachable). */
async function optionalGet(
  sdk: OpenAI,
  url: string,
  request: { maxRetries: number; timeout: number; signal?: AbortSignal },
): Promise<unknown> {
  if (request.signal?.aborted) return undefined;
  try {
    return await sdk.get<unknown>(url, request);
  } catch {
    return undefined;
  }
}
