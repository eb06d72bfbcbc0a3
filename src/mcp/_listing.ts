/** A server's tools and prompts, listed page by page. */
import type { Client } from "@modelcontextprotocol/sdk/client";
import type { Prompt as McpPrompt, Tool as McpTool } from "@modelcontextprotocol/sdk/types";

/** Most pages read of one list: a server that keeps sending cursors is cut off there. */
const MAX_PAGES = 100;

type ListOptions = { signal?: AbortSignal; timeout: number };

async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const result = await page(cursor);
    all.push(...result.items);
    cursor = result.nextCursor;
    if (cursor === undefined || cursor === "") break;
  }
  return all;
}

/** Every tool of the server (at most 100 pages). */
export function listAll(client: Client, options: ListOptions): Promise<McpTool[]> {
  return allPages(async (cursor) => {
    const r = await client.listTools(cursor === undefined ? {} : { cursor }, options);
    return { items: r.tools, nextCursor: r.nextCursor };
  });
}

/** Every prompt of the server (at most 100 pages). */
export function listPrompts(client: Client, options: ListOptions): Promise<McpPrompt[]> {
  return allPages(async (cursor) => {
    const r = await client.listPrompts(cursor === undefined ? {} : { cursor }, options);
    return { items: r.prompts, nextCursor: r.nextCursor };
  });
}
