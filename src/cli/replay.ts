/**
 * `moat --replay FILE`: plays a recorded session's model replies back, exchange by exchange,
 * while the tools run for real. One exchange is the recorded user message(s) and the replies
 * that followed; each is one agent run over the live history, with a replay client as its model.
 */
import type { AssistantMessage, ModelClient, UserMessage } from "../model/types.ts";
import { createReplayClient } from "../model/replay.ts";
import type { RecordedReply, Recording } from "../session/recording.ts";
import { formatReplayDifference, type ReplayCheckSummary } from "./replay_check.ts";

/** What one exchange gives the CLI to run. */
export interface ReplayExchange {
  /** User messages recorded before `prompt` without a reply in between (saved, not run). */
  earlier: UserMessage[];
  /** The user message the run starts with. */
  prompt: UserMessage;
  /** Plays this exchange's recorded replies. */
  model: ModelClient;
}

/** How one exchange's run ended. */
export type ExchangeEnd = "completed" | "exhausted" | "stopped";

/** Options of replayRecording. */
export interface ReplayOptions<O> {
  /** Replaces the recording's first user message. */
  prompt?: string;
  /**
   * Rewrites each string in the recorded tool-call arguments before they are played (absolute
   * paths of the recording machine → this one's), so a recording replays in another directory.
   */
  relocate?: (text: string) => string;
  /** Told about each reply as it is played (the replay check). */
  onReply?: (reply: RecordedReply) => void;
  warn(message: string): void;
  /** Runs one exchange to its end. */
  run(exchange: ReplayExchange): Promise<O>;
  /** completed = go on; exhausted = the recorded replies ran out; stopped = end the replay. */
  classify(outcome: O): ExchangeEnd;
}

/**
 * Runs every exchange of the recording in order and resolves to the last run's outcome. A run
 * that wants more replies than its exchange recorded ends that exchange (the recorded run stopped
 * there too) and the replay goes on with the next one; in the last exchange that outcome stands.
 */
export async function replayRecording<O>(
  recording: Recording,
  options: ReplayOptions<O>,
): Promise<O> {
  const exchanges = recording.exchanges;
  let outcome: O | undefined;
  for (let i = 0; i < exchanges.length; i++) {
    const exchange = exchanges[i] as (typeof exchanges)[number];
    const users = exchange.users.map((u) => u.message);
    if (i === 0 && options.prompt !== undefined) {
      users[0] = { role: "user", content: options.prompt };
    }
    const prompt = users.pop() as UserMessage;
    const relocate = options.relocate;
    const replies = relocate === undefined
      ? exchange.replies
      : exchange.replies.map((r) => ({ ...r, message: relocateCalls(r.message, relocate) }));
    const model = createReplayClient(replies, {
      source: recording.path,
      endLine: exchange.endLine,
      ...(options.onReply === undefined ? {} : { onReply: options.onReply }),
    });
    outcome = await options.run({ earlier: users, prompt, model });
    const end = options.classify(outcome);
    const next = exchanges[i + 1];
    if (end === "stopped" || (end === "exhausted" && next === undefined)) return outcome;
    if (end === "exhausted" && next !== undefined) {
      options.warn(
        `The recorded run ended after line ${exchange.endLine} without a final reply, so this ` +
          `run stops there too; the replay goes on with the user message on line ${
            next.users[0]?.line
          }`,
      );
      continue;
    }
    const unplayed = exchange.replies[model.played];
    if (unplayed !== undefined) {
      options.warn(
        `The run finished before the recorded reply on line ${unplayed.line}; ` +
          `${exchange.replies.length - model.played} recorded reply(ies) were not played`,
      );
    }
  }
  return outcome as O;
}

/** The stderr lines that report a replay check: passed, or the first difference. */
export function replayCheckText(check: ReplayCheckSummary): string {
  const unrecorded = check.unrecorded > 0
    ? ` (${check.unrecorded} result(s) had no recorded counterpart and were not compared)`
    : "";
  if (check.first === undefined) {
    return `moat: replay check passed: ${check.compared} tool result(s) match the recording${unrecorded}\n`;
  }
  return `moat: replay check failed: ${check.differing} of ${check.compared} tool result(s) differ ` +
    `from the recording${unrecorded}; the first:\n${formatReplayDifference(check.first)}`;
}

/** The message with `relocate` applied to every string inside its tool calls' arguments. */
function relocateCalls(
  message: AssistantMessage,
  relocate: (text: string) => string,
): AssistantMessage {
  const strings = (value: unknown): unknown => {
    if (typeof value === "string") return relocate(value);
    if (Array.isArray(value)) return value.map(strings);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strings(v)]));
    }
    return value;
  };
  return {
    ...message,
    blocks: message.blocks.map((block) =>
      block.type === "toolCall" ? { ...block, arguments: strings(block.arguments) } : block
    ),
  };
}
