/**
 * Which server family a base URL points at, and failing that, what the server says about itself
 * (its `/v1/models` entry, llama.cpp's `/props`, Ollama's `/api/version`). Pure: the fetching is
 * the adapter's.
 */
import type { ProfileName } from "./table.ts";

/** How a profile was chosen (`moat doctor` shows it). */
export type DetectedBy =
  | "flag"
  | "config"
  | "url"
  | "models"
  | "props"
  | "ollama-version"
  | "default";

/** Hosts that decide the profile by themselves (a suffix match on the host name). */
const HOSTS: ReadonlyArray<readonly [string, ProfileName]> = [
  ["api.openai.com", "openai"],
  [".openai.azure.com", "azure"],
  [".cognitiveservices.azure.com", "azure"],
  [".services.ai.azure.com", "azure"],
  ["openrouter.ai", "openrouter"],
  ["api.deepseek.com", "deepseek"],
  ["api.groq.com", "groq"],
  ["api.mistral.ai", "mistral"],
  ["codestral.mistral.ai", "mistral"],
  ["generativelanguage.googleapis.com", "gemini"],
  ["api.anthropic.com", "anthropic-compat"],
  ["api.together.xyz", "together"],
  ["api.together.ai", "together"],
  ["api.fireworks.ai", "fireworks"],
];

/**
 * Default ports that name one server (Ollama 11434, LM Studio 1234, SGLang 30000). 8080
 * (llama.cpp, but also many proxies) and 8000 (vLLM, but also SGLang and FastAPI apps) decide
 * nothing: the server's model list does.
 */
const PORTS: Readonly<Record<string, ProfileName>> = {
  "11434": "ollama",
  "1234": "lmstudio",
  "30000": "sglang",
};

/** The profile `baseURL` names by its host or default port, or undefined. */
export function profileFromUrl(baseURL: string): ProfileName | undefined {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase();
  for (const [suffix, name] of HOSTS) {
    if (
      suffix.startsWith(".")
        ? host.endsWith(suffix)
        : host === suffix || host.endsWith(`.${suffix}`)
    ) {
      return name;
    }
  }
  return PORTS[url.port];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The profile a `/v1/models` entry names: `owned_by` "llamacpp" or a `meta` object (llama.cpp
 * tools/server), "vllm" or a bare `max_model_len` (vLLM's ModelCard), "sglang", "library"
 * (Ollama's openai layer: the model's namespace), "organization_owner" (LM Studio).
 */
export function profileFromModelEntry(entry: unknown): ProfileName | undefined {
  if (!isRecord(entry)) return undefined;
  const owner = typeof entry.owned_by === "string" ? entry.owned_by.toLowerCase() : "";
  const byOwner: Record<string, ProfileName> = {
    llamacpp: "llamacpp",
    vllm: "vllm",
    sglang: "sglang",
    library: "ollama",
    organization_owner: "lmstudio",
  };
  if (byOwner[owner] !== undefined) return byOwner[owner];
  if (isRecord(entry.meta)) return "llamacpp";
  if (typeof entry.max_model_len === "number") return "vllm";
  return undefined;
}

/**
 * The version in Ollama's `GET /api/version` answer (server/routes.go: `{"version": "0.x.y"}`,
 * nothing else), or undefined for any other body: a server that is not Ollama may well serve
 * something at that path.
 */
export function ollamaVersionOf(body: unknown): string | undefined {
  if (!isRecord(body) || Object.keys(body).length !== 1) return undefined;
  const version = body.version;
  return typeof version === "string" && /^\d+\.\d+\.\d+(?:[-+][\w.-]*)?$/.test(version)
    ? version
    : undefined;
}
