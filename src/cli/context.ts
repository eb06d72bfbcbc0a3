/**
 * The context window of each model an invocation talks to: from --context-window, the config's
 * contextWindow, moat's built-in values, or the server's model information (looked up while the
 * first request runs), then learned from overflow errors by the agent's compaction.
 */
import {
  type AnyTool,
  type CompactionEndEvent,
  type ContextState,
  createContextKeeper,
  createContextState,
} from "../agent/mod.ts";
import { knownContextWindow } from "../model/context_window.ts";
import type { Message, ModelClient } from "../model/types.ts";
import type { SessionCompactionLine, SessionWriter } from "../session/store.ts";
import type { Reporter } from "../report/mod.ts";
import type { RunSetup } from "./setup.ts";

/** The context states of one invocation, one per model name. */
export type ContextStates = Map<string, ContextState>;

/** The state for `model`, created on first use; undefined when compaction is off or replaying. */
export function contextStateFor(
  setup: RunSetup,
  states: ContextStates,
  model: string,
): ContextState | undefined {
  // A replay's replies are already written: there is no window to keep.
  if (!setup.settings.compaction || setup.recording !== undefined) return undefined;
  const known = states.get(model);
  if (known !== undefined) return known;
  const configured = setup.settings.contextWindow;
  const builtin = knownContextWindow(model);
  const state = createContextState(
    configured !== undefined
      ? { window: configured, source: setup.flags.contextWindow !== undefined ? "flag" : "config" }
      : builtin !== undefined
      ? { window: builtin, source: "builtin" }
      : undefined,
  );
  states.set(model, state);
  return state;
}

/**
 * Asks the server for the model's window while a run goes on, when nothing else gave one. The
 * returned stop() ends the lookup (the run is over) and resolves once it has settled.
 */
export function lookUpContextWindow(
  state: ContextState | undefined,
  model: ModelClient,
): () => Promise<void> {
  if (state === undefined || state.window !== undefined || model.contextWindow === undefined) {
    return () => Promise.resolve();
  }
  const controller = new AbortController();
  const done = model.contextWindow({ signal: controller.signal }).then((window) => {
    // A window learned from an overflow meanwhile is the server's own word: it stays.
    if (window !== undefined && state.window === undefined) {
      state.window = window;
      state.source = "server";
    }
  }, () => {});
  return () => {
    controller.abort();
    return done;
  };
}

/** What /compact needs of the engine. */
export interface CompactEngine {
  contexts: ContextStates;
  system: () => string;
  tools: AnyTool[];
}

/** What /compact needs. */
export interface CompactNowOptions {
  model: ModelClient;
  modelName: string;
  history: Message[];
  signal: AbortSignal;
  reporter: Reporter;
  writer: SessionWriter | null;
  /** What the summary should focus on. */
  focus: string;
}

/**
 * /compact: summarises the conversation now (the reporter shows the compaction's line). Resolves
 * to a line to show when there was nothing to do or it failed, else "".
 */
export async function compactNow(
  setup: RunSetup,
  engine: CompactEngine,
  options: CompactNowOptions,
): Promise<string> {
  if (options.history.length === 0) return "Nothing to compact yet.";
  const state = contextStateFor(setup, engine.contexts, options.modelName) ??
    createContextState();
  const stopLookup = lookUpContextWindow(state, options.model);
  let compacted = false;
  let larger: CompactionEndEvent["summaryLarger"];
  const keeper = createContextKeeper({
    state,
    model: options.model,
    system: engine.system(),
    tools: engine.tools,
    clock: setup.clock,
    emit: (event) => {
      if (event.type === "compaction_end") {
        compacted = event.outcome === "compacted";
        larger = event.summaryLarger;
        if (event.messages !== undefined) {
          options.writer?.appendCompaction(compactionLine(event, event.messages));
        }
      }
      options.reporter.event(event);
    },
    ...(setup.settings.maxOutputTokens === undefined
      ? {}
      : { maxOutputTokens: setup.settings.maxOutputTokens }),
    ...(setup.settings.temperature === undefined
      ? {}
      : { temperature: setup.settings.temperature }),
  });
  try {
    const fit = await keeper.fit(options.history, {
      reason: "manual",
      signal: options.signal,
      ...(options.focus.trim() === "" ? {} : { focus: options.focus }),
    });
    if (fit.type === "aborted") return "(compaction aborted; the conversation is unchanged)";
    if (fit.type === "exhausted") return `moat: ${fit.message}`;
    if (compacted) return "";
    if (larger !== undefined) {
      return `Nothing to compact: the summary (~${count(larger.summaryTokens)} tokens) would be ` +
        `larger than the ${count(larger.replacedTokens)} tokens it replaces; the conversation ` +
        "is unchanged.";
    }
    return "Nothing to compact: the conversation is already short.";
  } catch (e) {
    return `moat: error: the summary request failed, so the conversation is unchanged: ${
      e instanceof Error ? e.message : String(e)
    }`;
  } finally {
    await stopLookup();
  }
}

const count = (n: number) => n.toLocaleString("en-US");

/** The session line of a compaction event (without type and time). */
export function compactionLine(
  event: CompactionEndEvent,
  messages: Message[],
): Omit<SessionCompactionLine, "type" | "time"> {
  return {
    reason: event.reason,
    ...(event.method === undefined ? {} : { method: event.method }),
    ...(event.summary === undefined ? {} : { summary: event.summary }),
    tokensBefore: event.tokensBefore,
    tokensAfter: event.tokensAfter,
    replaced: event.messagesBefore,
    messages,
  };
}
