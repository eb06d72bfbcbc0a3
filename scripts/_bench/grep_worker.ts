/**
 * The Worker of the grep bench job: runs one grep-tool call the way the tool host's Worker does
 * (same permissions, same file operations from the same guard, the same helper Workers), with the
 * limits raised so that every match is listed.
 */
import { createDenoFsOps } from "../../src/sys/fs.ts";
import type { WireFsGuard } from "../../src/sandbox/host/protocol.ts";
import { grepThreads, type ParentPort } from "../../src/sandbox/worker/grep_threads.ts";
import { toolFsOps } from "../../src/sandbox/worker/tool_fs.ts";
import { createGrepTool } from "../../src/tools/mod.ts";

/** What the job sends. */
export interface GrepWorkerRequest {
  cwd: string;
  guard: WireFsGuard;
  /** Helper threads (default: as in the tool host); 0 for one thread. */
  threads?: number;
  args: { pattern: string; literal: boolean; limit: number };
}

/** What the Worker answers. */
export interface GrepWorkerReply {
  ms: number;
  isError: boolean;
  output: string;
  details: unknown;
}

/** The Worker's global scope, as much of it as this module uses. */
const port = self as unknown as {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: GrepWorkerReply): void;
};
const parent = self as unknown as ParentPort;

port.onmessage = async (event: MessageEvent) => {
  const req = event.data as GrepWorkerRequest;
  const tool = createGrepTool({
    cwd: req.cwd,
    fs: toolFsOps(req.guard, createDenoFsOps),
    maxBytes: 1024 ** 3,
    threads: grepThreads(parent, req.threads === undefined ? {} : { size: req.threads }),
  });
  const t = performance.now();
  const out = await tool.execute(req.args, new AbortController().signal, {
    toolCallId: "bench",
    onUpdate: () => {},
  });
  const ms = performance.now() - t;
  const reply: GrepWorkerReply = {
    ms,
    isError: out.isError === true,
    output: out.output,
    details: out.details ?? null,
  };
  port.postMessage(reply);
};
