/**
 * MCP prompts as slash commands of interactive mode: each prompt of a ready server is
 * `/<server>:<prompt> [args]`, arguments given in the prompt's order or as `name=value`; the
 * prompt's messages become the text of the user turn (images and binary resources described).
 */
import type { GetPromptResult, Prompt as McpPrompt } from "@modelcontextprotocol/sdk/types";
import type { ServerConnection } from "./connection.ts";
import { resultToOutput } from "./tools.ts";

/** What the prompt commands need of a server's connection. */
export type PromptServer = Pick<ServerConnection, "config" | "prompts" | "request">;

/** One prompt as a slash command. */
export interface McpPromptCommand {
  /** The command as typed: `/<server>:<prompt>`. */
  name: string;
  /** `name <arg> [optional]`, for /help and error messages. */
  usage: string;
  description: string;
  /** The user turn of the command line's arguments, or why there is none. Never rejects. */
  expand(
    argText: string,
    signal: AbortSignal,
  ): Promise<{ ok: true; text: string } | { ok: false; error: string }>;
}

/** The slash command name of `prompt` of `server`. */
export function promptCommandName(server: string, prompt: string): string {
  return `/${server}:${prompt.replace(/\s+/g, "_")}`;
}

/** The prompt commands of `servers`, in config order. */
export function promptCommands(servers: readonly PromptServer[]): McpPromptCommand[] {
  return servers.flatMap((server) =>
    server.prompts().map((prompt): McpPromptCommand => {
      const name = promptCommandName(server.config.name, prompt.name);
      const usage = [
        name,
        ...(prompt.arguments ?? []).map((a) => a.required ? `<${a.name}>` : `[${a.name}]`),
      ].join(" ");
      return {
        name,
        usage,
        description: (prompt.description ?? prompt.title ?? "").trim().replace(/\s+/g, " "),
        async expand(argText, signal) {
          const parsed = parsePromptArguments(prompt, argText, usage);
          if (!parsed.ok) return parsed;
          const done = await server.request(
            `request for the prompt "${prompt.name}"`,
            (client, options) =>
              client.getPrompt({ name: prompt.name, arguments: parsed.args }, options),
            signal,
          );
          if (!done.ok) return { ok: false, error: `${done.error}.` };
          const text = promptText(done.value);
          if (text === "") {
            return { ok: false, error: `The prompt ${name} has no content: nothing was sent.` };
          }
          return { ok: true, text };
        },
      };
    })
  );
}

/**
 * The arguments of a command line: `name=value` for a declared name, the rest positional in the
 * declared order (the last one takes the rest of the line); quotes group words.
 */
export function parsePromptArguments(
  prompt: Pick<McpPrompt, "name" | "arguments">,
  argText: string,
  usage: string,
): { ok: true; args: Record<string, string> } | { ok: false; error: string } {
  const declared = prompt.arguments ?? [];
  const names = new Set(declared.map((a) => a.name));
  const args: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of splitWords(argText)) {
    const named = /^([^=\s]+)=([\s\S]*)$/.exec(word);
    if (named !== null && names.has(named[1] as string)) args[named[1] as string] = named[2] ?? "";
    else positional.push(word);
  }
  const open = declared.filter((a) => args[a.name] === undefined);
  if (positional.length > 0 && open.length === 0) {
    return {
      ok: false,
      error: declared.length === 0
        ? `The prompt command ${usage} takes no arguments.`
        : `Too many arguments: ${usage.split(" ")[0]} takes ${
          declared.map((a) => a.name).join(", ")
        }. Usage: ${usage}`,
    };
  }
  positional.forEach((word, i) => {
    const target = open[Math.min(i, open.length - 1)]?.name as string;
    args[target] = args[target] === undefined ? word : `${args[target]} ${word}`;
  });
  const missing = declared.filter((a) => a.required === true && args[a.name] === undefined);
  if (missing.length > 0) {
    const list = missing.map((a) => a.description ? `${a.name} (${a.description})` : a.name);
    return {
      ok: false,
      error: `Missing required argument${missing.length === 1 ? "" : "s"} of ${
        usage.split(" ")[0]
      }: ${list.join(", ")}. Usage: ${usage} (or name=value)`,
    };
  }
  return { ok: true, args };
}

/** The words of `text`; "double" or 'single' quotes keep spaces (and drop the quotes). */
function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const m of text.matchAll(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)) {
    words.push(m[0].replace(/"([^"]*)"|'([^']*)'/g, (_, d, s) => d ?? s ?? ""));
  }
  return words;
}

/** The text of a prompt's messages: user messages as they are, assistant ones marked. */
export function promptText(result: Pick<GetPromptResult, "messages" | "description">): string {
  const parts: string[] = [];
  for (const message of result.messages) {
    const content = message.content;
    // Images, audio and binary resources are described: the turn is text.
    const text = content.type === "text"
      ? content.text
      : resultToOutput({ content: [content] }).output;
    if (text.trim() === "") continue;
    parts.push(message.role === "assistant" ? `[Assistant, as the prompt has it]\n${text}` : text);
  }
  return parts.join("\n\n");
}
