/**
 * Limits that end a run with an answer: turns, tool calls, total tokens, wall time and any limit
 * the caller judges from the usage (cost). When one is reached the model gets one last request
 * without tools, asking it to report what it did, what remains and what it would do next.
 */
import type { AssistantMessage, Message, ModelClient, Usage, UserMessage } from "../model/types.ts";
import { type AgentEvent, forwardStream, type LimitName } from "./events.ts";

export type { LimitName } from "./events.ts";

/** The timers the wall-time limit needs (the run's Clock). */
interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Limits besides the turn limit (`maxIterations`). */
export interface RunLimits {
  /** Tool calls executed in the run; calls beyond it are refused. */
  maxToolCalls?: number;
  /** Input plus output tokens of the run's replies. */
  maxTokensTotal?: number;
  /** Wall time of the run in ms (measured with the run's clock). */
  maxWallTimeMs?: number;
  /** A limit judged from the usage so far (e.g. cost); returns its name when reached. */
  check?: (usage: Usage) => LimitName | undefined;
  /** Ask for a final answer without tools when a limit stops the run (default true). */
  finalAnswer?: boolean;
}

/** Each limit's name in messages and the flag that sets it. */
export const LIMITS: Record<LimitName, { name: string; flag: string }> = {
  max_turns: { name: "turn limit", flag: "--max-turns" },
  max_wall_time: { name: "wall-time limit", flag: "--max-wall-time" },
  max_tool_calls: { name: "tool-call limit", flag: "--max-tool-calls" },
  max_tokens_total: { name: "token limit", flag: "--max-tokens-total" },
  max_cost: { name: "cost limit", flag: "--max-cost" },
};

/** What each limit is called in the final request and in messages, e.g. "turn limit (--max-turns)". */
export function limitPhrase(limit: LimitName, value?: number): string {
  const { name, flag } = LIMITS[limit];
  const amount = value === undefined || limit === "max_cost"
    ? ""
    : limit === "max_wall_time"
    ? ` of ${value} s`
    : ` of ${value.toLocaleString("en-US")}`;
  return `${name}${amount} (${flag})`;
}

/** The user message of the final request. */
export function finalAnswerPrompt(limit: LimitName): UserMessage {
  return {
    role: "user",
    content: `[moat] The run reached its ${limitPhrase(limit)}: tools are no longer available ` +
      "and the run ends with your next reply. Report to the user, concisely and specifically " +
      "(files, commands, results): what you did, what remains to be done, and what you would " +
      "do next.",
  };
}

/** The limit whose report request `message` is (moat's own prompt above), or undefined. */
export function limitOfReportPrompt(message: UserMessage): LimitName | undefined {
  return (Object.keys(LIMITS) as LimitName[]).find((limit) =>
    message.content === finalAnswerPrompt(limit).content
  );
}

/**
 * The part of the wall time kept for the final answer: 15 % of it, between 1 and 60 s, and never
 * more than half of it.
 */
export function finalAnswerReserveMs(maxWallTimeMs: number): number {
  const reserve = Math.min(60_000, Math.max(1_000, Math.floor(maxWallTimeMs * 0.15)));
  return Math.min(reserve, Math.floor(maxWallTimeMs / 2));
}

/**
 * Watches the wall time: `signal` aborts when the work must stop to leave room for the final
 * answer; `hit` says whether that happened; `remainingMs` is the time left until the limit.
 */
export function watchWallTime(
  maxWallTimeMs: number | undefined,
  options: { clock: Clock; signal: AbortSignal },
): { signal: AbortSignal; hit: () => boolean; remainingMs: () => number; dispose: () => void } {
  if (maxWallTimeMs === undefined) {
    return {
      signal: options.signal,
      hit: () => false,
      remainingMs: () => Infinity,
      dispose: () => {},
    };
  }
  const { clock } = options;
  const end = clock.now() + maxWallTimeMs;
  const work = Math.max(0, maxWallTimeMs - finalAnswerReserveMs(maxWallTimeMs));
  const controller = new AbortController();
  let hit = false;
  const timer = clock.setTimeout(() => {
    hit = true;
    controller.abort();
  }, work);
  return {
    signal: AbortSignal.any([options.signal, controller.signal]),
    hit: () => hit,
    remainingMs: () => end - clock.now(),
    dispose: () => clock.clearTimeout(timer),
  };
}

/**
 * The final request without tools. Resolves to the reply (events emitted as for any reply), or
 * undefined when it failed, was aborted or timed out; never rejects.
 */
export async function requestFinalAnswer(
  model: ModelClient,
  request: {
    system: string;
    messages: readonly Message[];
    maxOutputTokens?: number;
    temperature?: number;
  },
  options: {
    signal: AbortSignal;
    timeoutMs: number;
    clock: Clock;
    emit: (e: AgentEvent) => void;
    /** The limit named by the request's `report_start` (emitted only when it is sent). */
    limit: LimitName;
  },
): Promise<AssistantMessage | undefined> {
  // Too little time left for any model to answer: the caller summarises the work instead.
  if (options.signal.aborted || options.timeoutMs < 250) return undefined;
  options.emit({ type: "report_start", limit: options.limit });
  const controller = new AbortController();
  const timer = Number.isFinite(options.timeoutMs)
    ? options.clock.setTimeout(() => controller.abort(), options.timeoutMs)
    : undefined;
  const signal = AbortSignal.any([options.signal, controller.signal]);
  try {
    const reply = await model.stream({ ...request, tools: [] }, {
      signal,
      ...forwardStream(options.emit),
    });
    return reply ?? undefined;
  } catch {
    // Whatever failed, the run already ended at its limit: the caller summarises the work.
    return undefined;
  } finally {
    if (timer !== undefined) options.clock.clearTimeout(timer);
  }
}
