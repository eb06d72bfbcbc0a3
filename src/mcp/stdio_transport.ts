/**
 * The SDK `Transport` over a process started through McpProcessOps: newline-delimited JSON-RPC
 * on stdin/stdout (the SDK's own ReadBuffer and serializer), stderr kept as its first lines for
 * error messages. Unlike the SDK's StdioClientTransport it inherits no environment, kills the
 * whole process group, and treats a line that is not JSON-RPC as fatal (stdout is corrupt).
 */
import { Buffer } from "node:buffer";
// The SDK's "./*" export maps types to "*.d.ts", so "x.js" would type as any: name the types.
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types";
import type { McpChildProcess, McpProcessExit, McpProcessOps, McpStdioCommand } from "./ops.ts";

/** Characters of stderr kept for error messages (its start: where the cause is said). */
const STDERR_HEAD_CHARS = 800;
/** Lines of stderr shown in an error message. */
const STDERR_HEAD_LINES = 8;

/** A stdio transport that can also say why it ended. */
export interface McpStdioTransport extends Transport {
  /** The child's pid once started. */
  pid(): number | undefined;
  /** Why the connection ended ("exited with code 1: …"), once it has. */
  endReason(): string | undefined;
  /** Closes without waiting for the server to exit by itself (it failed to start). */
  abandon(): Promise<void>;
}

/** Options of the stdio transport. */
export interface StdioTransportOptions {
  /** How long a closing server may take to exit after stdin closes before it is killed. */
  exitGraceMs?: number;
}

/** Creates a transport that spawns `command` on `start()`. */
export function createStdioTransport(
  ops: McpProcessOps,
  command: McpStdioCommand,
  options: StdioTransportOptions = {},
): McpStdioTransport {
  const graceMs = options.exitGraceMs ?? 500;
  let child: McpChildProcess | undefined;
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  let stderrHead = "";
  let stderrTail = "";
  let stderrChars = 0;
  let problem: string | undefined;
  let exit: McpProcessExit | undefined;
  let closing: Promise<void> | undefined;
  let pumps: Promise<unknown> = Promise.resolve();
  let readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  const encoder = new TextEncoder();

  const transport: McpStdioTransport = {
    start() {
      if (child !== undefined) return Promise.reject(new Error("The transport is already started"));
      const spawned = ops.spawn(command);
      if (!spawned.ok) {
        problem = `could not start "${command.program ?? command.command}": ${spawned.message}`;
        return Promise.reject(new Error(problem));
      }
      const proc = spawned.child;
      child = proc;
      writer = proc.stdin.getWriter();
      // A write to a server that has exited rejects; the exit is reported through onclose.
      writer.closed.catch(() => {});
      const out = proc.stdout.getReader();
      const err = proc.stderr.getReader();
      readers = [out, err];
      const stderrRead = readStderr(err);
      // When stdout ends the server has exited or stopped talking: either way it is done.
      pumps = readStdout(out).then(() => {
        void transport.close();
        return stderrRead;
      });
      return Promise.resolve();
    },
    async send(message: JSONRPCMessage) {
      if (writer === undefined || closing !== undefined) throw new Error("Not connected");
      await writer.write(encoder.encode(serializeMessage(message)));
    },
    close() {
      closing ??= shutDown(graceMs);
      return closing;
    },
    abandon() {
      closing ??= shutDown(0);
      return closing;
    },
    pid: () => child?.pid,
    endReason() {
      if (problem !== undefined) return problem;
      if (closing === undefined) return undefined;
      const how = exit === undefined
        ? "was stopped"
        : exit.signal !== null
        ? `was killed by ${exit.signal}`
        : `exited with code ${exit.code}`;
      const head = stderrChars <= STDERR_HEAD_CHARS
        ? stderrLines(stderrHead)
        // Past the head, its last lines too: a crash after chatty start-up logs says why there.
        : `${stderrLines(stderrHead)} | … | ${
          stderrLines(stderrTail).split(" | ").slice(-2).join(" | ")
        }`;
      return head === "" ? how : `${how}: ${head}`;
    },
  };

  async function readStdout(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const buffer = new ReadBuffer();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer.append(Buffer.from(value));
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (e) {
            problem ??= `sent a malformed message: ${e instanceof Error ? e.message : String(e)}`;
            transport.onerror?.(new Error(problem));
            // Once stdout carries something that is not JSON-RPC, nothing after it can be trusted.
            void transport.close();
            return;
          }
          if (message === null) break;
          transport.onmessage?.(message);
        }
      }
    } catch (e) {
      // ReadBuffer overflow (an over-long line), or the pipe failing.
      problem ??= e instanceof Error ? e.message : String(e);
    }
  }

  async function readStderr(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const text = decoder.decode(value, { stream: true });
        stderrChars += text.length;
        if (stderrHead.length < STDERR_HEAD_CHARS) {
          stderrHead = (stderrHead + text).slice(0, STDERR_HEAD_CHARS);
        }
        stderrTail = (stderrTail + text).slice(-STDERR_HEAD_CHARS);
      }
    } catch { /* the pipe broke: the tail so far is all there is */ }
  }

  async function shutDown(graceMs: number): Promise<void> {
    const proc = child;
    if (proc !== undefined) {
      // Closing stdin asks the server to exit (the MCP stdio shutdown); a write that never
      // drains must not hold it up.
      await within(writer?.close() ?? Promise.resolve(), graceMs);
      await within(proc.status, graceMs);
      // Always: grandchildren may outlive a leader that exited on its own.
      await proc.kill();
      exit = await proc.status;
      // With the group dead the pipes end once drained (the last stderr lines matter); a
      // process that left the group could hold them open, so stop reading after a while.
      // Cancelling also releases stdout when reading it stopped at a malformed line.
      await within(pumps, 1000);
      await Promise.allSettled(readers.map((r) => r.cancel()));
      await pumps.catch(() => {});
    }
    transport.onclose?.();
  }

  return transport;
}

/**
 * The first lines of a server's stderr on one line (" | " between them), without terminal escapes
 * and control characters, so a message shows the cause (a stack trace's first lines) safely.
 */
export function stderrLines(text: string): string {
  // deno-lint-ignore no-control-regex
  const plain = text.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b./g, "");
  return plain.split(/\r?\n/)
    // deno-lint-ignore no-control-regex
    .map((line) => line.replace(/[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f]/g, "").trim())
    .filter((line) => line.trim() !== "")
    .slice(0, STDERR_HEAD_LINES)
    .join(" | ");
}

/** Whether `promise` settles within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const over = new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([promise.then(() => true, () => true), over]);
  } finally {
    clearTimeout(timer);
  }
}
