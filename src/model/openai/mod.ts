/**
 * The OpenAI Chat Completions adapter, as other layers use it: a ModelClient for any
 * OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, …) through the
 * official `openai` SDK. The only code that knows the wire format is in this folder.
 */
export { createOpenAiClient, type OpenAiClientOptions, type StreamTimers } from "./client.ts";
export { inspectServer, type ServerInspection } from "./client.ts";
export {
  type CompatOverrides,
  PROFILE_NAMES,
  type ProfileName,
  profileNamed,
  type ProfileReport,
  SWITCH_NAMES,
  switchText,
} from "../profiles/mod.ts";
