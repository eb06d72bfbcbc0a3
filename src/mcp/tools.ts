/**
 * MCP tools as moat tools: `<server>__<tool>` names, the server's JSON Schema checked with Ajv,
 * and call results mapped to moat content (text and images; everything else described as text).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types";
import type { AnyTool, ToolOutput, ToolUpdate } from "../agent/tool.ts";
import type { ContentBlock } from "../model/types.ts";
import type { McpToolFilter } from "./config.ts";

/** What a moat tool name may look like (what model APIs accept). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Calls one tool of one server; the connection's `call`. Must not throw. */
export type McpCall = (
  tool: string,
  args: unknown,
  signal: AbortSignal,
  onUpdate: (update: ToolUpdate) => void,
) => Promise<ToolOutput>;

/** The moat name of `tool` of `server`: sanitised, and cut with a hash when over 64 characters. */
export function mcpToolName(
  server: string,
  tool: string,
  options: { hashed?: boolean } = {},
): string {
  const name = `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (name.length <= 64 && options.hashed !== true) return name;
  const hash = `_${fnv1a(`${server}\u0000${tool}`)}`;
  return name.slice(0, 64 - hash.length) + hash;
}

/** Whether the filter lets `tool` through (exact MCP names). */
export function toolAllowed(filter: McpToolFilter, tool: string): boolean {
  if (filter.include !== undefined && !filter.include.includes(tool)) return false;
  return !(filter.exclude?.includes(tool) ?? false);
}

/** Turns one listed MCP tool into a moat tool named `name` that calls through `call`. */
export function toMoatTool(server: string, tool: McpTool, name: string, call: McpCall): AnyTool {
  const schema = tool.inputSchema as Record<string, unknown>;
  let validator: ValidateFunction | string | undefined;
  const validate = (): ValidateFunction | string => {
    validator ??= compile(schema, server, tool.name);
    return validator;
  };
  const description = tool.description?.trim() ?? "";
  return {
    name,
    label: tool.annotations?.title ?? tool.title ?? `${server}: ${tool.name}`,
    description: `(MCP server "${server}", tool "${tool.name}") ` +
      (description === "" ? "No description given." : description),
    // deno-lint-ignore no-explicit-any
    parameters: schema as any,
    kind: "execute",
    concurrencySafe: tool.annotations?.readOnlyHint === true,
    validateArguments(args) {
      const check = validate();
      if (typeof check === "string") return [check];
      return check(args) ? [] : problemsOf(check.errors);
    },
    async execute(args, signal, ctx) {
      const check = validate();
      if (typeof check === "string") return { isError: true, output: check };
      const output = await call(tool.name, args, signal, ctx.onUpdate);
      return { ...output, details: { server, tool: tool.name } };
    },
  };
}

const AJV_OPTIONS = {
  allErrors: true,
  strict: false,
  validateFormats: false,
  logger: false,
} as const;

/** A compiled validator, or the message every call is refused with. */
function compile(
  schema: Record<string, unknown>,
  server: string,
  tool: string,
): ValidateFunction | string {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  try {
    // One Ajv per tool: schemas of different tools may reuse an `$id`, which one instance refuses.
    if (dialect.includes("2020-12")) return new Ajv2020(AJV_OPTIONS).compile(schema);
    if (dialect.includes("2019-09")) return new Ajv2019(AJV_OPTIONS).compile(schema);
    // draft-07 is the default; other dialects are read as draft-07 rather than refused.
    const { $schema: _, ...rest } = schema;
    return new Ajv(AJV_OPTIONS).compile(rest);
  } catch (e) {
    return `MCP tool "${tool}" of server "${server}" cannot be called: its input schema is not ` +
      `valid JSON Schema: ${e instanceof Error ? e.message : String(e)}. Use another tool.`;
  }
}

function problemsOf(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const extra = e.keyword === "additionalProperties"
      ? ` "${(e.params as { additionalProperty?: string }).additionalProperty}"`
      : "";
    return `${e.instancePath === "" ? "/" : e.instancePath}: ${e.message ?? "is invalid"}${extra}`;
  });
}

/** A `tools/call` result as the SDK returns it (current or pre-2025 shape). */
export interface McpCallResult {
  content?: unknown[] | undefined;
  structuredContent?: unknown;
  isError?: boolean | undefined;
  toolResult?: unknown;
}

/** Maps a `tools/call` result to a moat tool output. Pure; never throws on odd content. */
export function resultToOutput(result: McpCallResult): ToolOutput {
  const blocks: ContentBlock[] = [];
  for (const item of result.content ?? []) blocks.push(contentBlock(item));
  const texts = blocks.filter((b) => b.type === "text");
  if (texts.length === 0) {
    const structured = result.structuredContent ?? result.toolResult;
    if (structured !== undefined) {
      blocks.unshift({ type: "text", text: JSON.stringify(structured, null, 2) });
    }
  }
  const output = blocks.map((b) => b.type === "text" ? b.text : `[Image: ${b.mimeType}]`)
    .join("\n");
  const hasImage = blocks.some((b) => b.type === "image");
  return {
    output: output === "" ? "(The tool returned no content.)" : output,
    ...(hasImage ? { content: blocks } : {}),
    ...(result.isError === true ? { isError: true } : {}),
  };
}

function contentBlock(item: unknown): ContentBlock {
  const c = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
  const str = (v: unknown) => typeof v === "string" ? v : "";
  switch (c.type) {
    case "text":
      return { type: "text", text: str(c.text) };
    case "image":
      return { type: "image", data: str(c.data), mimeType: str(c.mimeType) || "image/png" };
    case "audio":
      return {
        type: "text",
        text: `[Audio (${str(c.mimeType) || "unknown type"}, ${
          base64Bytes(str(c.data))
        } bytes) not shown: moat cannot pass audio to the model.]`,
      };
    case "resource_link":
      return {
        type: "text",
        text: `[Resource link: ${str(c.name) || "(unnamed)"} <${str(c.uri)}>` +
          `${c.mimeType ? ` (${str(c.mimeType)})` : ""}${
            c.description ? ` — ${str(c.description)}` : ""
          }]`,
      };
    case "resource": {
      const r = (c.resource ?? {}) as Record<string, unknown>;
      const mime = str(r.mimeType);
      if (typeof r.text === "string") {
        return {
          type: "text",
          text: `[Resource <${str(r.uri)}>${mime ? ` (${mime})` : ""}]\n${r.text}`,
        };
      }
      if (mime.startsWith("image/") && typeof r.blob === "string") {
        return { type: "image", data: r.blob, mimeType: mime };
      }
      return {
        type: "text",
        text: `[Resource <${str(r.uri)}> (${mime || "binary"}, ${
          base64Bytes(str(r.blob))
        } bytes) not shown.]`,
      };
    }
    default:
      return { type: "text", text: `[Content of unsupported type ${JSON.stringify(c.type)}]` };
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor(data.length * 3 / 4) - padding);
}

/** FNV-1a of `text` as 8 hex digits: a short, stable suffix for cut names. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
