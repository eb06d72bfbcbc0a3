/**
 * A ModelClient that plays back recorded replies (moat --replay): each request gets the next
 * recorded assistant message, streamed through the same events a live model would emit, so the
 * agent loop, the tools and the output modes run exactly as they do with a real model.
 */
import {
  type AssistantMessage,
  emptyUsage,
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ModelStreamOptions,
} from "../model/types.ts";

/** One reply to play back and where it was recorded. */
export interface ReplayReply {
  message: AssistantMessage;
  /** 1-based line of the reply in the recording. */
  line: number;
}

/** Options of createReplayClient. */
export interface ReplayClientOptions<R extends ReplayReply> {
  /** The recording's path, for messages. */
  source: string;
  /** The recording's last line that belongs to these replies (named when they run out). */
  endLine: number;
  /** Called with each reply as it is handed out (before the loop sees it). Must not throw. */
  onReply?: (reply: R) => void;
  /**
   * Adjusts the reply's copy just before it is handed out (after every earlier reply's tool
   * results exist), e.g. to map recorded paths to this machine's. Must not throw.
   */
  prepare?: (message: AssistantMessage) => AssistantMessage;
}

/** A ModelClient over recorded replies. */
export interface ReplayClient extends ModelClient {
  /** How many replies were handed out so far. */
  readonly played: number;
}

/**
 * Creates a client that answers the i-th request with the i-th reply. Replies carry zero usage
 * (no tokens were spent); when none is left, `stream` throws a ModelError of kind
 * "replay_exhausted" naming the recording and its last line.
 */
export function createReplayClient<R extends ReplayReply>(
  replies: readonly R[],
  options: ReplayClientOptions<R>,
): ReplayClient {
  let next = 0;
  return {
    get played() {
      return next;
    },
    stream(_request: ModelRequest, streamOptions: ModelStreamOptions) {
      if (streamOptions.signal?.aborted) return Promise.resolve(null);
      const reply = replies[next];
      if (reply === undefined) {
        return Promise.reject(
          new ModelError(
            "replay_exhausted",
            `The recording "${options.source}" has no model reply left: it ends after line ${options.endLine}, ` +
              `but the run wants another reply there. The recorded run stopped at this point ` +
              `(interrupted or failed); record a complete session to replay further`,
          ),
        );
      }
      next++;
      options.onReply?.(reply);
      // A copy: the live history must not share objects with the recording the checker reads.
      const copy: AssistantMessage = { ...structuredClone(reply.message), usage: emptyUsage() };
      const message = options.prepare?.(copy) ?? copy;
      const emit = streamOptions.onEvent ?? (() => {});
      emit({ type: "message_start" });
      let index = 0;
      for (const block of message.blocks) {
        if (block.type === "text") {
          if (block.text !== "") emit({ type: "text_delta", delta: block.text });
        } else {
          emit({ type: "toolcall_start", index, id: block.id, name: block.name });
          const args = typeof block.arguments === "string"
            ? block.arguments
            : JSON.stringify(block.arguments) ?? "";
          emit({ type: "toolcall_delta", index, delta: args });
          index++;
        }
      }
      return Promise.resolve(message);
    },
  };
}
