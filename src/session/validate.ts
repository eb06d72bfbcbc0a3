/** Shape checks of session lines: what is malformed in a message value, as a short phrase. */
import type { Message, StopReason } from "../model/types.ts";

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Each check returns a short phrase naming the first malformed part, or null when the part is fine.

/** A value as shown in a problem phrase: strings quoted (and shortened), others by kind. */
function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return `"${String(value)}"`;
}

/** `where` names the block in the phrase; `allowed` says which block types the message may hold. */
function blockProblem(
  value: unknown,
  place: { where: string; allowed: "content" | "assistant" },
): string | null {
  const { where, allowed } = place;
  if (!isRecord(value)) return `${where} is not an object`;
  if (value.type === "text") {
    return typeof value.text === "string" ? null : `${where}'s "text" is not a string`;
  }
  if (allowed === "content" && value.type === "image") {
    if (typeof value.data !== "string") return `${where}'s "data" is not a string`;
    return typeof value.mimeType === "string" ? null : `${where}'s "mimeType" is not a string`;
  }
  if (allowed === "assistant" && value.type === "toolCall") {
    if (typeof value.id !== "string" || value.id === "") {
      return `${where}'s "id" is not a non-empty string`;
    }
    if (typeof value.name !== "string") return `${where}'s "name" is not a string`;
    return echoProblem(value.echo, `${where}'s`);
  }
  const expected = allowed === "content" ? '"text" or "image"' : '"text" or "toolCall"';
  return `${where}'s "type" is ${describe(value.type)}, not ${expected}`;
}

/** A provider echo (opaque fields a server needs back) is `{origin, fields}` when present. */
function echoProblem(value: unknown, owner: string): string | null {
  if (value === undefined) return null;
  if (!isRecord(value)) return `${owner} "echo" is not an object`;
  if (typeof value.origin !== "string") return `${owner} "echo.origin" is not a string`;
  return isRecord(value.fields) ? null : `${owner} "echo.fields" is not an object`;
}

function contentProblem(value: unknown, owner: string): string | null {
  if (typeof value === "string") return null;
  if (!Array.isArray(value)) return `${owner} "content" is neither a string nor an array`;
  for (let i = 0; i < value.length; i++) {
    const problem = blockProblem(value[i], {
      where: `${owner} content block ${i + 1}`,
      allowed: "content",
    });
    if (problem !== null) return problem;
  }
  return null;
}

const USAGE_KEYS = ["inputTokens", "outputTokens", "cachedTokens", "totalTokens"] as const;

/** Every StopReason of src/model/types.ts: a new one fails to compile until it is listed here. */
const STOP_REASON_SET: Record<StopReason, true> = {
  stop: true,
  toolUse: true,
  maxTokens: true,
  error: true,
};
const STOP_REASONS = Object.keys(STOP_REASON_SET) as StopReason[];

function assistantProblem(value: Record<string, unknown>): string | null {
  const owner = "the assistant message's";
  if (!Array.isArray(value.blocks)) return `${owner} "blocks" is not an array`;
  for (let i = 0; i < value.blocks.length; i++) {
    const problem = blockProblem(value.blocks[i], {
      where: `${owner} block ${i + 1}`,
      allowed: "assistant",
    });
    if (problem !== null) return problem;
  }
  if (!(STOP_REASONS as unknown[]).includes(value.stopReason)) {
    return `${owner} "stopReason" is ${describe(value.stopReason)}, not one of ${
      STOP_REASONS.map((r) => `"${r}"`).join(", ")
    }`;
  }
  if (value.thinking !== undefined && typeof value.thinking !== "string") {
    return `${owner} "thinking" is not a string`;
  }
  const echo = echoProblem(value.echo, owner);
  if (echo !== null) return echo;
  const usage = value.usage;
  if (!isRecord(usage)) return `${owner} "usage" is not an object`;
  const bad = USAGE_KEYS.find((k) => typeof usage[k] !== "number");
  return bad === undefined ? null : `${owner} "usage.${bad}" is not a number`;
}

function toolResultProblem(value: unknown, where: string): string | null {
  if (!isRecord(value)) return `${where} is not an object`;
  if (typeof value.toolCallId !== "string") return `${where}'s "toolCallId" is not a string`;
  if (typeof value.toolName !== "string") return `${where}'s "toolName" is not a string`;
  const content = contentProblem(value.content, `${where}'s`);
  if (content !== null) return content;
  return typeof value.isError === "boolean" ? null : `${where}'s "isError" is not a boolean`;
}

/**
 * What is wrong with a message value, as a short phrase (e.g. `the assistant message's "blocks"
 * is not an array`), or null when every part has the shape the adapters rely on.
 */
export function messageProblem(value: unknown): string | null {
  if (!isRecord(value)) return "the message is not an object";
  switch (value.role) {
    case "user":
      return contentProblem(value.content, "the user message's");
    case "assistant":
      return assistantProblem(value);
    case "toolResult": {
      if (!Array.isArray(value.results)) {
        return `the toolResult message's "results" is not an array`;
      }
      for (let i = 0; i < value.results.length; i++) {
        const problem = toolResultProblem(
          value.results[i],
          `the toolResult message's result ${i + 1}`,
        );
        if (problem !== null) return problem;
      }
      return null;
    }
    default:
      return `the message's "role" is ${
        describe(value.role)
      }, not "user", "assistant" or "toolResult"`;
  }
}

/** True when every part of the message has the shape the adapters rely on. */
export function isMessage(value: unknown): value is Message {
  return messageProblem(value) === null;
}
