/**
 * Reasoning and text-tool-call streams as the servers send them (`choices[0].delta` objects after
 * the role chunk, for `reply.deltas`), each named by server with where its shape was read.
 */
import type { RawDelta } from "../support/fake_openai.ts";

/**
 * DeepSeek thinking mode with tools: `reasoning_content` next to `content`, then the call; the
 * reasoning of a tool-call turn "must be fully passed back to the API in all subsequent requests"
 * (https://api-docs.deepseek.com/guides/thinking_mode, quoted in anomalyco/opencode#24722).
 */
export const DEEPSEEK_THINKING_TOOL_CALL: RawDelta[] = [
  { content: null, reasoning_content: "The user wants a.txt" },
  { content: null, reasoning_content: ", so I read it." },
  {
    content: null,
    tool_calls: [{
      index: 0,
      id: "call_00_kRf3",
      type: "function",
      function: { name: "read", arguments: "" },
    }],
  },
  { tool_calls: [{ index: 0, function: { arguments: '{"path":"a.txt"}' } }] },
];

/**
 * vLLM ≥ 0.11 with `--reasoning-parser`: the field is `reasoning` ("reasoning used to be called
 * reasoning_content", https://docs.vllm.ai/en/v0.11.2/features/reasoning_outputs/).
 */
export const VLLM_REASONING: RawDelta[] = [
  { reasoning: "9.11 < 9.8 because" },
  { reasoning: " 0.11 < 0.8." },
  { content: "9.8 is greater." },
];

/**
 * Mistral's Magistral streams `content` as an array of chunks: `thinking` ones (whose `thinking`
 * is itself an array of text chunks) and `text` ones (docs.mistral.ai, reasoning capabilities).
 */
export const MISTRAL_MAGISTRAL_CHUNKS: RawDelta[] = [
  { content: [{ type: "thinking", thinking: [{ type: "text", text: "Two plus two" }] }] },
  { content: [{ type: "thinking", thinking: [{ type: "text", text: " is four." }] }] },
  { content: [{ type: "text", text: "2 + 2 = 4." }] },
];

/**
 * llama.cpp's server (and vLLM before 0.11, DashScope) stream `reasoning_content`
 * (https://docs.vllm.ai/en/v0.8.3/features/reasoning_outputs.html; llama.cpp's
 * `--reasoning-format deepseek` fills the same field).
 */
export const LLAMACPP_REASONING_CONTENT: RawDelta[] = [
  { content: null, reasoning_content: "Short question." },
  { content: "Hello!" },
];

/**
 * Ollama's /v1 endpoint: `reasoning` with an empty `content` while thinking (raw SSE from Ollama
 * 0.34.2 quoted in dirac-run/dirac#227 and anomalyco/opencode#46061).
 */
export const OLLAMA_REASONING: RawDelta[] = [
  { content: "", reasoning: "We" },
  { content: "", reasoning: " need" },
  { content: "", reasoning: " answer" },
  { content: "Hi there." },
];

/**
 * OpenRouter: `reasoning` and `reasoning_details` together (the same text twice), a signature in a
 * later entry with the same index, and an encrypted entry; the details are replayed with their tool
 * call (braintrustdata/braintrust-sdk-javascript#1883; RooCodeInc/Roo-Code#9506 keeps
 * `reasoning_details` to send back).
 */
export const OPENROUTER_REASONING_DETAILS: RawDelta[] = [
  {
    content: "",
    reasoning: "Read a.txt",
    reasoning_details: [
      { type: "reasoning.text", text: "Read a.txt", format: "anthropic-claude-v1", index: 0 },
    ],
  },
  {
    content: "",
    reasoning: " first.",
    reasoning_details: [
      { type: "reasoning.text", text: " first.", format: "anthropic-claude-v1", index: 0 },
    ],
  },
  {
    content: "",
    reasoning_details: [
      {
        type: "reasoning.text",
        signature: "EqQBCkYIBxgC",
        format: "anthropic-claude-v1",
        index: 0,
      },
    ],
  },
  {
    content: "",
    reasoning_details: [
      { type: "reasoning.encrypted", data: "gAAAAABo", format: "anthropic-claude-v1", index: 1 },
    ],
  },
  {
    tool_calls: [{
      index: 0,
      id: "toolu_01",
      type: "function",
      function: { name: "read", arguments: '{"path":"a.txt"}' },
    }],
  },
];

/**
 * Gemini's OpenAI-compatible endpoint (Gemini 3): no `index`, the call whole in one chunk, its
 * signature in `extra_content.google.thought_signature`, which must come back verbatim or the next
 * request is a 400 "Function call is missing a thought_signature" (continuedev/continue#8865;
 * https://discuss.ai.google.dev/t/openai-api-compatibility-broken-due-to-thought-signature-on-gemini-3-pro-preview/109823).
 */
export const GEMINI_THOUGHT_SIGNATURE: RawDelta[] = [
  {
    role: "assistant",
    tool_calls: [{
      id: "function-call-7731",
      type: "function",
      function: { name: "read", arguments: '{"path":"a.txt"}' },
      extra_content: { google: { thought_signature: "CsYBAdHtim9+Q2==" } },
    }],
  },
];

/**
 * DeepSeek-R1 distills and Qwen3 on a server without a reasoning parser: the reasoning inline in
 * `<think>…</think>` at the start of the content, the tags split across chunks (vLLM's
 * `deepseek_r1` parser "looks for <think> ... </think>",
 * https://docs.vllm.ai/en/v0.7.2/_sources/features/reasoning_outputs.md).
 */
export const VLLM_NO_PARSER_THINK_TAGS: RawDelta[] = [
  { content: "<th" },
  { content: "ink>\nThe answer is 4" },
  { content: ".</thi" },
  { content: "nk>\n\n2 + 2 = 4." },
];

/**
 * Qwen/Hermes on vLLM without `--enable-auto-tool-choice --tool-call-parser hermes`: the call comes
 * back as content in the markup the hermes parser looks for, `<tool_call>(.*?)</tool_call>`
 * (https://docs.vllm.ai/en/v0.18.2/api/vllm/tool_parsers/hermes_tool_parser/).
 */
export const VLLM_UNPARSED_HERMES: RawDelta[] = [
  { content: "I'll read it.\n<tool_call>\n" },
  { content: '{"name": "read", "arguments": {"path": "a.txt"}}' },
  { content: "\n</tool_call>" },
];

/**
 * Llama 3.1 without the `llama3_json` parser: `<|python_tag|>` then `{"name", "parameters"}`
 * objects separated by `;` (https://docs.vllm.ai/en/v0.10.1.1/features/tool_calling.html,
 * "Llama Models (llama3_json)").
 */
export const VLLM_UNPARSED_LLAMA: RawDelta[] = [
  { content: '<|python_tag|>{"name": "read", "parameters": {"path": "a.txt"}}; ' },
  { content: '{"name": "ls", "parameters": {"path": "."}}<|eom_id|>' },
];

/**
 * Mistral/Devstral without the `mistral` parser: `[TOOL_CALLS]` then a JSON array of calls
 * (https://docs.vllm.ai/en/v0.10.1.1/features/tool_calling.html, "Mistral Models (mistral)").
 */
export const VLLM_UNPARSED_MISTRAL: RawDelta[] = [
  { content: '[TOOL_CALLS][{"name": "read", "arguments": {"path": "a.txt"}}]' },
];

/**
 * A model on Ollama without a tools template (or llama.cpp without `--jinja`) writing the call as a
 * fenced JSON block (the "```json block" of issue #26; opencode and cline report the same).
 */
export const OLLAMA_UNPARSED_JSON_BLOCK: RawDelta[] = [
  { content: "Reading the file now.\n```json\n" },
  { content: '{"name": "read", "arguments": {"path": "a.txt"}}\n```' },
];
