/**
 * The fetch tool: one http(s) URL within `--allow-net`, HTML as markdown of its main content, JSON
 * and text as they are, other types refused; paged by line like read, capped in bytes and time.
 */
import { type Static, Type } from "@sinclair/typebox";
import { join } from "node:path";
import type { Tool, ToolOutput } from "../../agent/tool.ts";
import type { FsOps } from "../ops.ts";
import type { Clock } from "../../agent/types.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead } from "../truncate.ts";
import { followHops, netTarget } from "./_hops.ts";
import { bodyKind } from "./_kind.ts";
import type { FetchedResponse, FetchNet, FetchPermissions } from "./net.ts";

export type { FetchedResponse, FetchNet, FetchPermissions, NetVerdict } from "./net.ts";
export { netTarget } from "./_hops.ts";

/** Arguments of fetch. */
export const FetchParams = Type.Object({
  url: Type.String({
    description: "The http:// or https:// URL to fetch; its host must be granted by --allow-net",
  }),
  offset: Type.Optional(
    Type.Integer({ minimum: 1, description: "1-based line of the page to start from (default 1)" }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, description: "Maximum number of lines to return (max 2000)" }),
  ),
});
/** Validated fetch arguments. */
export type FetchArgs = Static<typeof FetchParams>;

/** Options of `createFetchTool`. */
export interface FetchToolOptions {
  net: FetchNet;
  permissions: FetchPermissions;
  /** Times the whole fetch (headers and body). */
  clock: Clock;
  /** Longest a fetch may take, redirects and body included (default 30 s). */
  timeoutMs?: number;
  /** Bytes of the body read at most; the rest is not downloaded (default 5 MiB). */
  maxBodyBytes?: number;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  /** Line budget of one page (default 2000). */
  maxLines?: number;
  /** Byte budget of one page (default 51,200). */
  maxBytes?: number;
  /**
   * Where a page longer than one result is saved whole (the run's spill directory, which the
   * tools may read), so the model pages it with read instead of fetching again; none: not saved.
   */
  spill?: { dir: string; fs: Pick<FsOps, "writeFile"> };
  /** True without any --allow-net grant: the description says which flag the model should ask for. */
  ungranted?: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 5;

/** The URL of `raw` when it is http(s), else undefined. */
function httpUrl(raw: string): URL | undefined {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  return url !== undefined && (url.protocol === "http:" || url.protocol === "https:")
    ? url
    : undefined;
}

/** Creates the fetch tool. */
export function createFetchTool(options: FetchToolOptions): Tool<typeof FetchParams> {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const grantNote = options.ungranted
    ? " No host is granted in this run: every fetch is refused unless the user approves it or " +
      "runs moat with --allow-net=HOST; tell the user which host to grant."
    : " Only hosts granted by --allow-net can be fetched.";
  return {
    name: "fetch",
    label: "Fetch",
    description: "Fetch a web page or API response over http(s). HTML comes back as markdown " +
      "of the page's main content, JSON and text as they are; other types are refused. Output " +
      `is paged by line (${maxLines} lines or ${
        formatSize(options.maxBytes ?? DEFAULT_MAX_BYTES)
      }` +
      " per page): continue with offset. Redirects are followed within the grants." + grantNote,
    parameters: FetchParams,
    kind: "read",
    concurrencySafe: true,
    locations(args) {
      const url = httpUrl(args.url);
      return url === undefined ? [] : [{ access: "net", host: netTarget(url) }];
    },
    async execute(args, signal, ctx): Promise<ToolOutput> {
      const url = httpUrl(args.url);
      if (url === undefined) {
        return error(`Cannot fetch "${args.url}": not an http:// or https:// URL`);
      }
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const controller = new AbortController();
      let timedOut = false;
      const timer = options.clock.setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const onAbort = () => controller.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      const failed = (e: unknown) =>
        error(
          timedOut
            ? `Fetching "${url.href}" took longer than ${timeoutMs / 1000} s and was stopped; ` +
              "try a smaller page or another source"
            : signal.aborted
            ? `Fetching "${url.href}" was aborted`
            : `Cannot fetch "${url.href}": ${e instanceof Error ? e.message : String(e)}`,
        );
      try {
        const hops = await followHops(url, options, {
          maxRedirects: options.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
          signal: controller.signal,
          toolCallId: ctx.toolCallId,
        });
        if (!hops.ok) return error(hops.message);
        const { response } = hops;
        try {
          return await pageOf(hops.url, response, {
            args,
            options,
            signal: controller.signal,
            toolCallId: ctx.toolCallId,
          });
        } finally {
          response.close();
        }
      } catch (e) {
        return failed(e);
      } finally {
        options.clock.clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

function error(output: string): ToolOutput {
  return { output, isError: true };
}

/** The page of the response's body that `args` asks for. */
async function pageOf(
  url: URL,
  response: FetchedResponse,
  call: { args: FetchArgs; options: FetchToolOptions; signal: AbortSignal; toolCallId: string },
): Promise<ToolOutput> {
  const { args, options, signal } = call;
  const contentType = response.headers.get("content-type");
  const kind = bodyKind(contentType);
  if (kind === "refused") {
    const length = Number(response.headers.get("content-length") ?? NaN);
    const size = Number.isFinite(length) ? formatSize(length) : "unknown size";
    return error(
      `Refused "${url.href}": its type "${contentType}" (${size}) is not HTML, JSON or text; ` +
        "fetch reads only those",
    );
  }
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const body = await readCapped(response.body, maxBody, signal);
  const text = decode(body.bytes, contentType);
  // The converter's libraries load on the first HTML page, not with every run.
  const shown = kind === "html" ? (await import("./_page.ts")).htmlToMarkdown(text) : text;
  const status = response.status >= 400 ? `HTTP ${response.status}. ` : "";
  const page = pageText(shown, args, options);
  const saved = page.note === undefined ? undefined : await spill(shown, call);
  const notes = [
    ...(status === "" ? [] : [`[${status.trim()}]`]),
    ...(page.note === undefined ? [] : [page.note]),
    ...(saved === undefined ? [] : [saved]),
    ...(body.cut
      ? [`[The body was cut at ${formatSize(maxBody)}: the rest was not downloaded]`]
      : []),
  ];
  return {
    output: notes.length === 0 ? page.text : `${page.text}\n\n${notes.join("\n")}`,
    ...(response.status >= 400 ? { isError: true } : {}),
  };
}

/** Saves the whole page in the spill directory: the note saying where, or why it could not. */
async function spill(
  text: string,
  call: { options: FetchToolOptions; toolCallId: string },
): Promise<string | undefined> {
  const target = call.options.spill;
  if (target === undefined) return undefined;
  const name = `fetch-${call.toolCallId.replace(/[^\w-]/g, "_") || "page"}.md`;
  const path = join(target.dir, name);
  try {
    await target.fs.writeFile(path, new TextEncoder().encode(text));
  } catch (e) {
    return `[The whole page could not be saved: ${e instanceof Error ? e.message : String(e)}]`;
  }
  return `[The whole page is saved in "${path}": page it there with read (offset, limit) ` +
    "instead of fetching it again]";
}

/** The lines `args` asks for, within the page budgets, and the continuation note. */
function pageText(
  text: string,
  args: FetchArgs,
  options: FetchToolOptions,
): { text: string; note?: string } {
  const maxLines = Math.min(args.limit ?? Infinity, options.maxLines ?? DEFAULT_MAX_LINES);
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const start = (args.offset ?? 1) - 1;
  if (start > 0 && start >= lines.length) {
    return {
      text: "",
      note: `[Offset ${start + 1} is past the end of the page (${lines.length} lines)]`,
    };
  }
  const kept = truncateHead(lines.slice(start).join("\n"), {
    maxLines,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
  });
  const last = start + kept.outputLines;
  if (last >= lines.length) return { text: kept.content };
  return {
    text: kept.content,
    note: `[Showing lines ${start + 1}-${last} of ${lines.length}. Use offset=${
      last + 1
    } to continue.]`,
  };
}

/** At most `max` bytes of `body`; the rest is cancelled, not read. */
async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  max: number,
  signal: AbortSignal,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  if (body === null) return { bytes: new Uint8Array(0), cut: false };
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener("abort", cancel, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  try {
    for (;;) {
      if (signal.aborted) throw new Error("aborted");
      const { done, value } = await reader.read();
      if (done) break;
      const room = max - size;
      chunks.push(value.length > room ? value.subarray(0, room) : value);
      size += Math.min(value.length, room);
      if (value.length >= room) {
        cut = value.length > room || !(await reader.read()).done;
        if (cut) await reader.cancel().catch(() => {});
        break;
      }
    }
  } finally {
    signal.removeEventListener("abort", cancel);
  }
  if (signal.aborted) throw new Error("aborted");
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes, cut };
}

/** The body as text in the charset its type names (UTF-8 when none or unknown). */
function decode(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType ?? "")?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}
