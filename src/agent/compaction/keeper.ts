/**
 * Keeps a run's requests inside the model's context window: counts the next request (the prompt
 * tokens the server reported for the last reply plus an estimate of what was added since),
 * compacts before a request that would not fit, learns the window from overflow errors, and
 * reports every compaction as events. The history is replaced in place, always whole and valid.
 */
import {
  addUsage,
  type AssistantMessage,
  emptyUsage,
  type Message,
  type ModelClient,
  type ModelError,
  type Usage,
} from "../../model/types.ts";
import type { AgentEvent, CompactionOutcome, CompactionReason } from "../events.ts";
import { type AnyTool, prunedHintOf, toolSpecs } from "../tool.ts";
import { type CompactionLevel, compactStep } from "./compact.ts";
import { estimateFixedTokens, estimateMessagesTokens, estimateMessageTokens } from "./estimate.ts";

/** Where the context window came from. */
export type ContextWindowSource = "flag" | "config" | "builtin" | "server" | "error" | "guess";

/** What is known about the model's context window; shared by every run of one invocation. */
export interface ContextState {
  /** The model's context window in tokens, once known. */
  window?: number;
  source?: ContextWindowSource;
  /** Real/estimated token ratio seen so far (≥ 1): the estimate is scaled by it. */
  calibration: number;
  /** The prompt tokens the server reported for a request of the first `messages` messages. */
  anchor?: { history: readonly Message[]; messages: number; tokens: number };
}

/** A new context state, with the window when it is already known. */
export function createContextState(
  known?: { window: number; source: ContextWindowSource },
): ContextState {
  return known === undefined
    ? { calibration: 1 }
    : { calibration: 1, window: known.window, source: known.source };
}

/** How much of the window a request may use: the window minus the reply's budget and a margin. */
export function requestBudget(window: number, maxOutputTokens?: number): number {
  const reserve = maxOutputTokens === undefined
    ? Math.min(16384, Math.floor(window / 5))
    : Math.min(maxOutputTokens, Math.floor(window / 2));
  const margin = Math.max(128, Math.floor(window * 0.02));
  return window - reserve - margin;
}

/** Everything the keeper needs from the run. */
export interface ContextKeeperOptions {
  state: ContextState;
  model: ModelClient;
  system: string;
  /**
   * The run's tools: their definitions count in every request; their hints word the stubs. Read
   * at each estimate (the tools of a run may grow: the loop offers each request's own).
   */
  tools: readonly AnyTool[];
  /** Durations only (the run's Clock). */
  clock: { now(): number };
  emit: (event: AgentEvent) => void;
  maxOutputTokens?: number;
  temperature?: number;
}

/** How making the history fit went. */
export type FitResult =
  | { type: "fits"; modelCalls: number; usage: Usage }
  | { type: "aborted"; modelCalls: number; usage: Usage }
  | { type: "exhausted"; message: string; modelCalls: number; usage: Usage };

/** The keeper of one run (see the module comment). */
export interface ContextKeeper {
  /** Estimated tokens of a request with `history` (calibrated, anchored to reported usage). */
  tokens(history: readonly Message[]): number;
  /**
   * Compacts `history` in place until a request fits the budget (from `level` up). Rejects with
   * the ModelError of a failed summary request; `history` is then unchanged.
   */
  fit(
    history: Message[],
    options: {
      reason: CompactionReason;
      level?: CompactionLevel;
      focus?: string;
      signal: AbortSignal;
    },
  ): Promise<FitResult>;
  /** Learns from an overflow error the server sent for a request of `history`. */
  learnOverflow(history: readonly Message[], error: ModelError): void;
  /** Records the prompt tokens the server reported for the reply just saved to `history`. */
  observeReply(history: readonly Message[], reply: AssistantMessage): void;
}

const thousands = (n: number) => n.toLocaleString("en-US");

/** Creates the keeper of one run. */
export function createContextKeeper(options: ContextKeeperOptions): ContextKeeper {
  const { state } = options;
  let fixed: { tools: readonly AnyTool[]; tokens: number } | undefined;
  const fixedRaw = () => {
    const tools = options.tools;
    if (fixed?.tools !== tools) {
      fixed = { tools, tokens: estimateFixedTokens(options.system, toolSpecs(tools)) };
    }
    return fixed.tokens;
  };
  const rawTokens = (history: readonly Message[]) => fixedRaw() + estimateMessagesTokens(history);
  const tokens = (history: readonly Message[]) => {
    const anchor = state.anchor;
    if (anchor !== undefined && anchor.history === history && history.length >= anchor.messages) {
      return anchor.tokens +
        Math.ceil(estimateMessagesTokens(history.slice(anchor.messages)) * state.calibration);
    }
    return Math.ceil(rawTokens(history) * state.calibration);
  };
  const budget = (window: number) => requestBudget(window, options.maxOutputTokens);

  const exhaustedMessage = (window: number, left: number) =>
    `The conversation does not fit the model's context window of ${thousands(window)} tokens ` +
    `(${windowOrigin(state.source)}), and compaction cannot remove more: the system prompt, ` +
    `the tool definitions and the messages that must stay take about ${thousands(left)} tokens ` +
    "by moat's estimate. " +
    "Shorten the last message, start a fresh conversation, use a model with a larger window, or " +
    "set --context-window if the window is larger than that.";

  return {
    tokens,
    async fit(history, fitOptions) {
      let usage = emptyUsage();
      let modelCalls = 0;
      const window = state.window ?? (fitOptions.reason === "manual" ? 128_000 : undefined);
      const before = tokens(history);
      if (window === undefined) return { type: "fits", modelCalls, usage };
      const limit = budget(window);
      const manual = fitOptions.reason === "manual";
      // After an overflow the server's word beats the estimate: compact anyway.
      if (fitOptions.reason === "threshold" && before <= limit) {
        return { type: "fits", modelCalls, usage };
      }

      const started = options.clock.now();
      const messagesBefore = history.length;
      options.emit({ type: "compaction_start", reason: fitOptions.reason, tokens: before, window });
      let method: "prune" | "summary" | undefined;
      let summary: string | undefined;
      let larger: { summaryTokens: number; replacedTokens: number } | undefined;
      let outcome: CompactionOutcome = "unchanged";
      const end = (final: CompactionOutcome) => {
        options.emit({
          type: "compaction_end",
          reason: fitOptions.reason,
          outcome: final,
          ...(method === undefined ? {} : { method }),
          modelCalls,
          usage,
          tokensBefore: before,
          tokensAfter: tokens(history),
          messagesBefore,
          messagesAfter: history.length,
          durationMs: options.clock.now() - started,
          window,
          ...(summary === undefined ? {} : { summary }),
          ...(larger === undefined || final === "compacted" ? {} : { summaryLarger: larger }),
          ...(final === "compacted" || method !== undefined ? { messages: [...history] } : {}),
        });
      };
      try {
        for (let level = fitOptions.level ?? 0; level <= 2; level++) {
          const step = await compactStep({
            history,
            messageBudget: Math.floor(limit / state.calibration) - fixedRaw(),
            window,
            calibration: state.calibration,
            level: level as CompactionLevel,
            ...(manual && level === (fitOptions.level ?? 0) ? { force: true } : {}),
            ...(fitOptions.focus === undefined ? {} : { focus: fitOptions.focus }),
          }, {
            model: options.model,
            signal: fitOptions.signal,
            hint: (call, result) => prunedHintOf(options.tools, call, result),
            ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
          });
          modelCalls += step.modelCalls;
          if (step.usage !== undefined) usage = addUsage(usage, step.usage);
          if (step.type === "unchanged" && step.larger !== undefined) {
            const scaled = (n: number) => Math.ceil(n * state.calibration);
            larger = {
              summaryTokens: scaled(step.larger.summaryTokens),
              replacedTokens: scaled(step.larger.replacedTokens),
            };
          }
          if (step.type === "aborted") {
            end(method === undefined ? "aborted" : "compacted");
            return { type: "aborted", modelCalls, usage };
          }
          if (step.type === "compacted") {
            history.splice(0, history.length, ...step.messages);
            delete state.anchor;
            if (method !== "summary") method = step.method;
            if (step.summary !== undefined) summary = step.summary;
            outcome = "compacted";
            if (tokens(history) <= limit) break;
          }
        }
      } catch (e) {
        end(outcome);
        throw e;
      }
      // Before a request the estimate alone (high on purpose) never stops a run: the server
      // decides. After its overflow error, a history that cannot shrink more is the end.
      const after = tokens(history);
      if (
        fitOptions.reason === "overflow" && (outcome === "unchanged" || after > limit)
      ) {
        end("exhausted");
        return { type: "exhausted", message: exhaustedMessage(window, after), modelCalls, usage };
      }
      end(outcome);
      return { type: "fits", modelCalls, usage };
    },
    learnOverflow(history, error) {
      const info = error.overflow ?? {};
      const raw = rawTokens(history);
      if (info.promptTokens !== undefined && info.promptTokens > 0) {
        state.calibration = Math.max(state.calibration, (info.promptTokens / raw) * 1.05);
      }
      delete state.anchor;
      if (info.window !== undefined) {
        if (state.window === undefined || info.window < state.window) {
          state.window = info.window;
          state.source = "error";
        }
        return;
      }
      const sent = Math.ceil(raw * state.calibration);
      if (info.excessTokens !== undefined && info.excessTokens > 0) {
        const learned = Math.max(256, sent - info.excessTokens);
        if (state.window === undefined || learned < state.window) {
          state.window = learned;
          state.source = "error";
        }
        return;
      }
      // No number at all: the request was too big, so the window (in the estimate's units) is
      // below what was sent, whatever moat believed.
      state.window = Math.max(256, Math.floor(Math.min(state.window ?? Infinity, sent) * 0.75));
      state.source = "guess";
    },
    observeReply(history, reply) {
      const prompt = reply.usage.inputTokens;
      if (prompt <= 0) return;
      const messages = history.length - 1;
      // The request was everything before the reply (the estimates are cached per message).
      const raw = rawTokens(history) - estimateMessageTokens(reply);
      if (raw > 0) state.calibration = Math.max(1, prompt / raw);
      state.anchor = { history, messages, tokens: prompt };
    },
  };
}

function windowOrigin(source: ContextWindowSource | undefined): string {
  switch (source) {
    case "flag":
      return "from --context-window";
    case "config":
      return "from the config's contextWindow";
    case "builtin":
      return "moat's value for this model";
    case "server":
      return "from the server's model information";
    case "error":
      return "from the server's error";
    case "guess":
    case undefined:
      return "estimated from the server's errors";
    default: {
      const never: never = source;
      return never;
    }
  }
}
