/**
 * `moat --replay FILE`: plays a recorded session's model replies back, exchange by exchange,
 * while the tools run for real. One exchange is the recorded user message(s) and the replies
 * that followed; each is one agent run over the live history, with a replay client as its model.
 */
import { dirname } from "node:path";
import type {
  AssistantMessage,
  ModelClient,
  ToolResultMessage,
  UserMessage,
} from "../model/types.ts";
import { createReplayClient } from "./client.ts";
import { limitOfReportPrompt, type NotExecutedDetails } from "../agent/mod.ts";
import type { RecordedExchange, RecordedReply, Recording } from "./recording.ts";
import { type NormalizeContext, replacePaths } from "./normalize.ts";

/** What one exchange gives the CLI to run. */
export interface ReplayExchange {
  /** User messages recorded before `prompt` without a reply in between (saved, not run). */
  earlier: UserMessage[];
  /** The user message the run starts with. */
  prompt: UserMessage;
  /** Plays this exchange's recorded replies. */
  model: ModelClient;
  /** This is the recording's last exchange (its answer is the run's final answer). */
  last: boolean;
  /**
   * The recorded run stopped at its turn limit after this many turns (replies whose calls ran):
   * the live run should stop there too.
   */
  turnLimit?: number;
  /**
   * With turnLimit: the recorded run's report at the limit is this exchange's last reply, played
   * by the request without tools that the limit ends the run with.
   */
  report?: boolean;
}

/** How one exchange's run ended. */
export type ExchangeEnd = "completed" | "exhausted" | "stopped";

/** Options of replayRecording. */
export interface ReplayOptions<O> {
  /** Replaces the recording's first user message. */
  prompt?: string;
  /**
   * Rewrites the `path` and `command` arguments of each recorded tool call as it is played
   * (paths of the recording machine → this one's), so a recording replays in another directory.
   */
  relocate?: (text: string) => string;
  /**
   * Told about each reply as it is played (the replay check). `compare` is false for the last
   * reply of a recorded run that was cut short: its recorded results (e.g. "command aborted")
   * say how the recording was interrupted, not how the tools behave.
   */
  onReply?: (reply: RecordedReply, options: { compare: boolean }) => void;
  /** Told about each recorded reply the replay never played. */
  onUnplayed?: (reply: RecordedReply) => void;
  warn(message: string): void;
  /** Runs one exchange to its end. */
  run(exchange: ReplayExchange): Promise<O>;
  /** completed = go on; exhausted = the recorded replies ran out; stopped = end the replay. */
  classify(outcome: O, exchange: ReplayExchange): ExchangeEnd;
}

/** The recorded results were all refusals at the turn limit (as an older moat recorded it). */
function refusedAtTurnLimit(reply: RecordedReply | undefined): boolean {
  const results = reply?.results?.message.results ?? [];
  return results.length > 0 && results.every((r) => {
    const details = r.details as Partial<NotExecutedDetails> | undefined;
    return details?.notExecuted === "max_turns";
  });
}

/** The run's report at its turn limit: moat's own prompt, then the model's reply without calls. */
function isTurnLimitReport(exchange: RecordedExchange | undefined): boolean {
  const [prompt, ...others] = exchange?.users ?? [];
  const [reply, ...more] = exchange?.replies ?? [];
  return prompt !== undefined && others.length === 0 && reply !== undefined &&
    more.length === 0 && limitOfReportPrompt(prompt.message) === "max_turns" &&
    !reply.message.blocks.some((b) => b.type === "toolCall");
}

/** How a recorded exchange ended at the turn limit, if it did. */
function turnLimitOf(exchange: RecordedExchange, next: RecordedExchange | undefined): {
  /** The replies that were turns (an older moat's refused reply left out). */
  turns: readonly RecordedReply[];
  /** The reply whose calls an older moat refused at the limit: not played, not compared. */
  refused?: RecordedReply;
  /** The next exchange, when it is the run's report at the limit. */
  report?: RecordedExchange;
} | undefined {
  const last = exchange.replies.at(-1);
  if (last === undefined || !last.message.blocks.some((b) => b.type === "toolCall")) {
    return undefined;
  }
  const report = isTurnLimitReport(next) ? next : undefined;
  if (refusedAtTurnLimit(last)) {
    return { turns: exchange.replies.slice(0, -1), refused: last, ...(report ? { report } : {}) };
  }
  return report === undefined ? undefined : { turns: exchange.replies, report };
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
  const reportUnplayed = (replies: readonly RecordedReply[]) => {
    for (const reply of replies) options.onUnplayed?.(reply);
  };
  let outcome: O | undefined;
  for (let i = 0; i < exchanges.length; i++) {
    const exchange = exchanges[i] as (typeof exchanges)[number];
    const users = exchange.users.map((u) => u.message);
    if (i === 0 && options.prompt !== undefined) {
      users[0] = { role: "user", content: options.prompt };
    }
    const prompt = users.pop() as UserMessage;
    const limited = turnLimitOf(exchange, exchanges[i + 1]);
    // The run's report at the limit is played by the live run's own request for it.
    if (limited?.report !== undefined) i++;
    const replies = limited === undefined
      ? exchange.replies
      : [...limited.turns, ...(limited.report?.replies ?? [])];
    const lastReply = replies.at(-1);
    // The recorded run wanted another reply after these results and never got one.
    const cutShort = limited === undefined && lastReply !== undefined &&
      lastReply.message.blocks.some((b) => b.type === "toolCall");
    const relocate = options.relocate;
    const onReply = options.onReply;
    const model = createReplayClient(replies, {
      source: recording.path,
      endLine: (limited?.report ?? exchange).endLine,
      ...(onReply === undefined
        ? {}
        : { onReply: (reply) => onReply(reply, { compare: !(cutShort && reply === lastReply) }) }),
      ...(relocate === undefined ? {} : { prepare: (m) => relocateCalls(m, relocate) }),
    });
    const current: ReplayExchange = {
      earlier: users,
      prompt,
      model,
      last: i === exchanges.length - 1,
      ...(limited === undefined ? {} : { turnLimit: limited.turns.length }),
      ...(limited?.report === undefined ? {} : { report: true }),
    };
    outcome = await options.run(current);
    const end = options.classify(outcome, current);
    const next = exchanges[i + 1];
    if (end === "stopped" || (end === "exhausted" && next === undefined)) {
      reportUnplayed(replies.slice(model.played));
      for (const later of exchanges.slice(i + 1)) reportUnplayed(later.replies);
      return outcome;
    }
    if (end === "exhausted" && next !== undefined) {
      options.warn(
        `The recorded run ended after line ${exchange.endLine} without a final reply, so this ` +
          `run stops there too; the replay goes on with the user message on line ${
            next.users[0]?.line
          }`,
      );
      continue;
    }
    const unplayed = replies[model.played];
    if (unplayed !== undefined) {
      options.warn(
        `The run finished before the recorded reply on line ${unplayed.line}; ` +
          `${replies.length - model.played} recorded reply(ies) were not played`,
      );
      // Only this exchange's: the next ones still run.
      reportUnplayed(replies.slice(model.played));
    }
  }
  return outcome as O;
}

/** Arguments that name paths or hold a shell command; file contents (edit, write) never change. */
const RELOCATED_ARGUMENTS = ["path", "command"];

/** The message with `relocate` applied to the path and command arguments of its tool calls. */
function relocateCalls(
  message: AssistantMessage,
  relocate: (text: string) => string,
): AssistantMessage {
  return {
    ...message,
    blocks: message.blocks.map((block) => {
      const args = block.type === "toolCall" ? block.arguments : undefined;
      if (typeof args !== "object" || args === null || Array.isArray(args)) return block;
      const moved = Object.fromEntries(
        Object.entries(args).map((
          [key, value],
        ) => [
          key,
          RELOCATED_ARGUMENTS.includes(key) && typeof value === "string" ? relocate(value) : value,
        ]),
      );
      return { ...block, arguments: moved };
    }),
  };
}

/** Maps the recording machine's paths to this run's, learning bash spill files as results arrive. */
export interface Relocation {
  relocate(text: string): string;
  /** Pairs the spill files named in a recorded result's details with the live result's. */
  learn(recorded: ToolResultMessage | undefined, live: ToolResultMessage): void;
}

/** Creates the relocation from the recording's workspace and home to the live ones. */
export function createRelocation(recorded: NormalizeContext, live: NormalizeContext): Relocation {
  // Only paths that differ; the first pair for a path wins.
  const pairs: Array<[string, string]> = [];
  const add = (from: string, to: string) => {
    if (from !== to && !pairs.some(([f]) => f === from)) pairs.push([from, to]);
  };
  add(recorded.workspace, live.workspace);
  if (recorded.home !== undefined && live.home !== undefined) add(recorded.home, live.home);
  const spillFiles = (details: unknown): Array<string | undefined> => {
    const d = typeof details === "object" && details !== null
      ? details as Record<string, unknown>
      : {};
    // A background job's log file (bash's start and the job tool's results).
    const job = typeof d.job === "object" && d.job !== null
      ? (d.job as Record<string, unknown>).logFile
      : undefined;
    return [d.stdoutFile, d.stderrFile, job].map((f) => typeof f === "string" ? f : undefined);
  };
  return {
    relocate: (text) => replacePaths(text, pairs),
    learn(recordedMessage, liveMessage) {
      for (const live of liveMessage.results) {
        const recordedResult = recordedMessage?.results.find((r) =>
          r.toolCallId === live.toolCallId
        );
        if (recordedResult === undefined) continue;
        const liveFiles = spillFiles(live.details);
        spillFiles(recordedResult.details).forEach((from, i) => {
          const to = liveFiles[i];
          if (from === undefined || to === undefined) return;
          // Bash spill files and job logs get fresh names in a fresh directory each run: a
          // later `read` of the recorded file must read this run's.
          add(from, to);
          add(dirname(from), dirname(to));
        });
      }
    },
  };
}
