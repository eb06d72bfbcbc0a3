/**
 * What a client does around each reply: while it streams, text from where a tool-call markup
 * starts is held back (so calls written as text are not shown as the answer); at its end the
 * echoes are stamped with the server they came from and calls written as text become tool calls,
 * with one warning per client that names the server setting that parses them.
 */
import type {
  AssistantMessage,
  ModelRequest,
  ModelStreamEvent,
  ModelStreamOptions,
} from "../types.ts";
import { MARKUP_NAMES, MARKUP_STARTS, parserHint, recoverTextCalls } from "./_markup.ts";
import { stampOrigin } from "./_reasoning.ts";
import { hashText } from "./stream.ts";

/** Length of the longest end of `text` that is a proper start of one of `markers`. */
function partialMarker(text: string, markers: readonly string[]): number {
  let best = 0;
  for (const marker of markers) {
    for (let n = Math.min(marker.length - 1, text.length); n > best; n--) {
      if (marker.startsWith(text.slice(text.length - n))) {
        best = n;
        break;
      }
    }
  }
  return best;
}

/** Passes stream events on, holding text deltas back from the first markup start. */
class MarkupHold {
  #pending = "";
  #held = "";
  #holding = false;

  constructor(readonly emit: (e: ModelStreamEvent) => void) {}

  onEvent = (event: ModelStreamEvent): void => {
    if (event.type === "message_start") {
      // A retried attempt starts over.
      this.#pending = "";
      this.#held = "";
      this.#holding = false;
    }
    if (event.type !== "text_delta") return this.emit(event);
    if (this.#holding) {
      this.#held += event.delta;
      return;
    }
    const text = this.#pending + event.delta;
    const starts = MARKUP_STARTS.map((m) => text.indexOf(m)).filter((i) => i !== -1);
    if (starts.length > 0) {
      const at = Math.min(...starts);
      this.#send(text.slice(0, at));
      this.#held = text.slice(at);
      this.#pending = "";
      this.#holding = true;
      return;
    }
    const keep = partialMarker(text, MARKUP_STARTS);
    this.#send(text.slice(0, text.length - keep));
    this.#pending = text.slice(text.length - keep);
  };

  /** At the end of the reply: what was held is text after all unless it became calls. */
  end(recovered: boolean): void {
    if (!recovered) this.#send(this.#pending + this.#held);
    this.#pending = "";
    this.#held = "";
  }

  #send(text: string): void {
    if (text !== "") this.emit({ type: "text_delta", delta: text });
  }
}

/** Runs one streamed reply (`run`, given the stream options to use) and finishes it. */
export type ReplyFinisher = (
  request: ModelRequest,
  options: ModelStreamOptions,
  run: (options: ModelStreamOptions) => Promise<AssistantMessage | null>,
) => Promise<AssistantMessage | null>;

/** The finisher of a client for `baseURL` (it remembers whether it has warned). */
export function replyFinisher(baseURL: string): ReplyFinisher {
  let warned = false;
  return async (request, options, run) => {
    const emit = (event: ModelStreamEvent) => {
      try {
        options.onEvent?.(event);
      } catch {
        // A failing sink must not lose the reply.
      }
    };
    const offered = new Set(request.tools.map((t) => t.name));
    if (offered.size === 0) {
      const message = await run(options);
      if (message !== null) stampOrigin(message, baseURL);
      return message;
    }
    const hold = new MarkupHold(emit);
    const message = await run({ ...options, onEvent: hold.onEvent });
    if (message === null) return null;
    stampOrigin(message, baseURL);
    const text = message.blocks.map((b) => b.type === "text" ? b.text : "").join("");
    const recovered = recoverTextCalls(message, offered, (i) => `call_t${i}_${hashText(text)}`);
    hold.end(recovered !== undefined);
    if (recovered === undefined) return message;
    if (!warned) {
      warned = true;
      emit({
        type: "warning",
        message: `The server at "${baseURL}" returned tool calls as text (${
          MARKUP_NAMES[recovered.markup]
        }) instead of parsing them: moat ran them, but to make the server parse them ${
          parserHint(recovered.markup)
        }.`,
      });
    }
    return recovered.message;
  };
}
