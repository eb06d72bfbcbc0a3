/**
 * A scripted ModelClient for agent tests: replies are queued up front (or computed from the
 * request), every request is recorded, text is streamed as `text_delta` events, and a reply can
 * hang until the signal aborts (resolving `null`, like a real client) or fail mid-stream.
 *
 * `const model = new ScriptedModelClient([scripted.toolCalls([{ name: "read", args: { path:
 * "README.md" } }]), scripted.text("done")]);` — when the script runs out, `stream` rejects.
 */
import {
  type AssistantMessage,
  emptyUsage,
  type ModelClient,
  type ModelRequest,
  type ModelStreamOptions,
  type StopReason,
  type TextBlock,
  type ToolCallBlock,
  type Usage,
} from "../../src/model/types.ts";

/** A reply that streams `deltas`, then waits until the signal aborts and resolves `null`. */
export interface HangStep {
  kind: "hang";
  deltas: string[];
}

/** A reply that streams `deltas`, then rejects with `error` (a disconnect, a 500, …). */
export interface FailStep {
  kind: "fail";
  error: Error;
  deltas: string[];
}

/** One scripted answer, or a function of the request (n = 1-based request number). */
export type ScriptedStep =
  | AssistantMessage
  | HangStep
  | FailStep
  | ((request: ModelRequest, n: number) => ScriptedStep | Promise<ScriptedStep>);

/** A tool call to script; the id defaults to a unique `call_s<n>`. */
export interface ScriptedCall {
  id?: string;
  name: string;
  /** Parsed arguments, or the raw text when `invalidJson` is set. */
  args: unknown;
  invalidJson?: string;
}

let nextId = 0;

/** Deterministic usage for scripted replies. */
function scriptedUsage(outputTokens = 10): Usage {
  return {
    ...emptyUsage(),
    inputTokens: 100,
    outputTokens,
    totalTokens: 100 + outputTokens,
  };
}

/** Builders for scripted steps. */
export const scripted = {
  /** A text answer (stopReason "stop" unless given). */
  text(text: string, options: { stopReason?: StopReason; usage?: Usage } = {}): AssistantMessage {
    return {
      role: "assistant",
      blocks: [{ type: "text", text }],
      stopReason: options.stopReason ?? "stop",
      usage: options.usage ?? scriptedUsage(),
    };
  },
  /** A reply with tool calls and optional leading text (stopReason "toolUse" unless given). */
  toolCalls(
    calls: ScriptedCall[],
    options: { text?: string; stopReason?: StopReason; usage?: Usage } = {},
  ): AssistantMessage {
    const blocks: Array<TextBlock | ToolCallBlock> = [];
    if (options.text !== undefined) blocks.push({ type: "text", text: options.text });
    for (const call of calls) {
      const block: ToolCallBlock = {
        type: "toolCall",
        id: call.id ?? `call_s${++nextId}`,
        name: call.name,
        arguments: call.args,
      };
      if (call.invalidJson !== undefined) block.invalidJson = call.invalidJson;
      blocks.push(block);
    }
    return {
      role: "assistant",
      blocks,
      stopReason: options.stopReason ?? "toolUse",
      usage: options.usage ?? scriptedUsage(),
    };
  },
  /** Streams `deltas`, then never resolves until the request's signal aborts. */
  hang(deltas: string[] = []): HangStep {
    return { kind: "hang", deltas };
  },
  /** Streams `deltas`, then rejects with `error`. */
  fail(error: Error, deltas: string[] = []): FailStep {
    return { kind: "fail", error, deltas };
  },
};

function splitDeltas(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** A ModelClient that plays a script and records every request. */
export class ScriptedModelClient implements ModelClient {
  /** Every request received, with a snapshot of its messages at the time of the call. */
  readonly requests: ModelRequest[] = [];
  readonly #steps: ScriptedStep[];

  constructor(steps: ScriptedStep[] = []) {
    this.#steps = [...steps];
  }

  /** Plays the next step. */
  async stream(
    request: ModelRequest,
    options: ModelStreamOptions,
  ): Promise<AssistantMessage | null> {
    // The loop mutates history afterwards: keep what was actually sent.
    this.requests.push({ ...request, messages: structuredClone([...request.messages]) });
    const n = this.requests.length;
    let step = this.#steps.shift();
    if (step === undefined) {
      throw new Error(`ScriptedModelClient: request #${n} was not scripted`);
    }
    while (typeof step === "function") step = await step(request, n);
    const { signal, onEvent } = options;
    if (signal?.aborted) return null;
    onEvent?.({ type: "message_start" });

    if ("kind" in step) {
      for (const delta of step.deltas) onEvent?.({ type: "text_delta", delta });
      if (step.kind === "fail") throw step.error;
      if (signal === undefined) {
        throw new Error("ScriptedModelClient: a hanging reply needs an abort signal");
      }
      await new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
      return null;
    }

    step.blocks.forEach((block, index) => {
      if (block.type === "text") {
        for (const delta of splitDeltas(block.text)) onEvent?.({ type: "text_delta", delta });
      } else {
        onEvent?.({ type: "toolcall_start", index, id: block.id, name: block.name });
      }
    });
    // Like a real stream, the reply completes asynchronously, and an abort in between wins.
    await Promise.resolve();
    if (signal?.aborted) return null;
    return structuredClone(step);
  }
}
