/** The schema of moat's config files: every key, its type and a description. */
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { OUTPUT_FORMATS, SANDBOX_MODES } from "./args.ts";
import { PricesSchema } from "../report/usage.ts";
import { McpServersSchema } from "../mcp/config.ts";
import { McpToolSearchSchema } from "../mcp/tool_search.ts";
import { HooksSchema } from "../hooks/config_schema.ts";

/** Schema of `.moat/config.json` (project) and `$XDG_CONFIG_HOME/moat/config.json` (user). */
export const ConfigFileSchema = Type.Object({
  $schema: Type.Optional(Type.String({ description: "Ignored; lets editors find a schema." })),
  model: Type.Optional(Type.String({ minLength: 1, description: "Model name." })),
  baseUrl: Type.Optional(
    Type.String({ minLength: 1, description: "OpenAI-compatible endpoint URL." }),
  ),
  apiKeyEnv: Type.Optional(
    Type.String({
      pattern: "^[A-Za-z_][A-Za-z0-9_]*$",
      description: "Name of the environment variable holding the API key.",
    }),
  ),
  maxTurns: Type.Optional(Type.Integer({ minimum: 1, description: "Max model turns per run." })),
  maxWallTime: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, description: "Wall-time limit of a run in seconds." }),
  ),
  maxToolCalls: Type.Optional(
    Type.Integer({ minimum: 1, description: "Tool calls a run may make." }),
  ),
  maxTokensTotal: Type.Optional(
    Type.Integer({ minimum: 1, description: "Input plus output tokens a run may use." }),
  ),
  maxCost: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, description: "What a run may cost (needs pricing)." }),
  ),
  contextWindow: Type.Optional(
    Type.Integer({ minimum: 256, description: "The model's context window in tokens." }),
  ),
  compaction: Type.Optional(
    Type.Boolean({
      description: "Compact the conversation when it outgrows the context window (default true).",
    }),
  ),
  tools: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), { description: "Enabled tool names." }),
  ),
  bashTimeout: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, description: "Default bash timeout in seconds." }),
  ),
  sandbox: Type.Optional(
    Type.Union(SANDBOX_MODES.map((m) => Type.Literal(m)), { description: "OS sandbox mode." }),
  ),
  output: Type.Optional(
    Type.Union(OUTPUT_FORMATS.map((m) => Type.Literal(m)), {
      description: "Print-mode output format.",
    }),
  ),
  systemPrompt: Type.Optional(Type.String({ description: "Replaces the built-in system prompt." })),
  appendSystemPrompt: Type.Optional(
    Type.String({ description: "Appended to the system prompt." }),
  ),
  contextFiles: Type.Optional(
    Type.Boolean({ description: "Load AGENTS.md files (default true)." }),
  ),
  failOnDeny: Type.Optional(Type.Boolean({ description: "Exit 4 after denied tool calls." })),
  prompt: Type.Optional(
    Type.Boolean({ description: "Ask for approval on a TTY (default true); false = deny." }),
  ),
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2, description: "Sampling." })),
  maxOutputTokens: Type.Optional(
    Type.Integer({ minimum: 1, description: "Max output tokens per reply." }),
  ),
  headers: Type.Optional(
    Type.Record(Type.String(), Type.String(), { description: "Extra HTTP headers." }),
  ),
  provider: Type.Optional(
    Type.String({
      minLength: 1,
      description: "The server family (openai, ollama, llamacpp, vllm, …); detected when unset.",
    }),
  ),
  compat: Type.Optional(
    Type.Object({
      systemRole: Type.Optional(
        Type.Union([Type.Literal("system"), Type.Literal("developer")], {
          description: "Role of the system prompt (developer: OpenAI's reasoning models only).",
        }),
      ),
      store: Type.Optional(
        Type.Union([Type.Boolean(), Type.Literal("omit")], { description: "Send store." }),
      ),
      strict: Type.Optional(
        Type.Union([Type.Boolean(), Type.Literal("omit")], {
          description: "Send strict in each function definition.",
        }),
      ),
      toolCallIds: Type.Optional(
        Type.Union([Type.Literal("keep"), Type.Literal("alnum9")], {
          description: "Tool-call ids as sent: kept, or 9 alphanumerics (Mistral).",
        }),
      ),
      stripSchemaKeys: Type.Optional(
        Type.Array(Type.String({ minLength: 1 }), {
          description: "JSON-schema keywords removed from tool parameters (Gemini).",
        }),
      ),
      alternateRoles: Type.Optional(
        Type.Boolean({
          description: "Strictly alternating roles: merge consecutive user messages.",
        }),
      ),
      emptyToolContent: Type.Optional(
        Type.Union([Type.Literal("null"), Type.Literal("empty")], {
          description: "Content of an assistant message with tool calls and no text.",
        }),
      ),
      streamOptions: Type.Optional(
        Type.Boolean({ description: "Send stream_options.include_usage (default true)." }),
      ),
      maxTokensField: Type.Optional(
        Type.Union([
          Type.Literal("max_completion_tokens"),
          Type.Literal("max_tokens"),
          Type.Literal("omit"),
        ], { description: "Request field for the output-token limit (omit: none)." }),
      ),
      maxTokensCap: Type.Optional(
        Type.Integer({ minimum: 0, description: "Largest output budget sent (0: no cap)." }),
      ),
      parallelToolCalls: Type.Optional(
        Type.Union([Type.Boolean(), Type.Literal("omit")], {
          description: "Send parallel_tool_calls with this value (omit: leave it out).",
        }),
      ),
      vision: Type.Optional(
        Type.Boolean({ description: "The model accepts images (default true)." }),
      ),
      echoReasoningContent: Type.Optional(
        Type.Boolean({
          description: "Send reasoning_content back on tool-call turns (default: only to " +
            "DeepSeek's API, whose thinking mode requires it).",
        }),
      ),
      structuredOutput: Type.Optional(
        Type.Boolean({
          description: "The server supports response_format json_schema (--output-schema uses " +
            "it instead of a final_answer tool).",
        }),
      ),
    }, {
      additionalProperties: false,
      description: "Switches for OpenAI-compatible servers that differ from OpenAI.",
    }),
  ),
  prices: Type.Optional(PricesSchema),
  mcpServers: Type.Optional(McpServersSchema),
  mcpToolSearch: Type.Optional(McpToolSearchSchema),
  hooks: Type.Optional(HooksSchema),
  permissions: Type.Optional(
    Type.Record(Type.String({ minLength: 1 }), Type.Unknown(), {
      description: "User config only: Deno permission sets by name, used with -P[=NAME].",
    }),
  ),
  pricing: Type.Optional(
    Type.Record(Type.String({ minLength: 1 }), PricesSchema, {
      description: "User config only: token prices per model name (they win over prices).",
    }),
  ),
  trustedProjects: Type.Optional(
    Type.Array(Type.String({ pattern: "^(/|~$|~/)" }), {
      description: "User config only: real paths (or ~/…) of projects whose sensitive " +
        "settings (baseUrl, apiKeyEnv, headers, mcpServers, sandbox) apply.",
    }),
  ),
}, { additionalProperties: false });

/** Server compatibility switches from the config files. */
export type CompatSettings = NonNullable<Static<typeof ConfigFileSchema>["compat"]>;

/** A parsed, valid config file. */
export type ConfigFile = Static<typeof ConfigFileSchema>;

/** Validates a config file's text. Pure. */
export function parseConfigFile(
  path: string,
  text: string,
): { ok: true; config: ConfigFile } | { ok: false; error: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return {
      ok: false,
      error: `Invalid config file "${path}": not valid JSON: ${
        e instanceof Error ? e.message : String(e)
      }`,
    };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { ok: false, error: `Invalid config file "${path}": the top level must be an object` };
  }
  const first = Value.Errors(ConfigFileSchema, data).First();
  if (first !== undefined) {
    const field = first.path.replace(/^\//, "").replace(/\//g, ".") || "(top level)";
    const choices = (first.schema.anyOf as Array<{ const?: unknown }> | undefined)
      ?.map((s) => s.const).filter((c) => c !== undefined);
    const problem = first.message === "Unexpected property"
      ? `unknown field (known fields: ${Object.keys(ConfigFileSchema.properties).join(", ")})`
      : choices !== undefined && choices.length > 0
      ? `expected one of ${choices.join(", ")}, got ${JSON.stringify(first.value)}`
      : first.message.charAt(0).toLowerCase() + first.message.slice(1);
    return { ok: false, error: `Invalid config file "${path}": field "${field}": ${problem}` };
  }
  return { ok: true, config: data as ConfigFile };
}
