/** A replay in print mode (--replay): the recording's exchanges played through runOnce. */
import type { RecordedReply, Recording } from "../../replay/recording.ts";
import { type Engine, runOnce, type RunOutcome } from "../engine.ts";
import { createRelocation, replayRecording } from "../../replay/play.ts";
import { createReplayChecker } from "../../replay/check.ts";
import { type ReplaySummary, resultText } from "../../report/mod.ts";
import type { RunSetup } from "../setup.ts";
/** What print mode gives every run of a replay. */
export interface ReplayContext {
  recording: Recording;
  runOptions: Omit<Parameters<typeof runOnce>[2], "model" | "prompt">;
  warn: (message: string) => void;
}

/**
 * Starts a replay (--replay): one run per recorded exchange, each with a replay client as its
 * model, the recording's paths relocated to this machine's, and --replay-check following along.
 */
export function startReplay(
  setup: RunSetup,
  engine: Engine,
  context: ReplayContext,
): { run: Promise<RunOutcome>; summary(options: { judged: boolean }): ReplaySummary } {
  const { recording, runOptions } = context;
  const { reporter, stats, writer } = runOptions;
  const header = recording.header;
  const liveHome = setup.env.HOME === "" ? undefined : setup.env.HOME;
  const recorded = {
    workspace: header.cwd,
    ...(header.home === undefined ? {} : { home: header.home }),
  };
  const live = {
    workspace: setup.workspace,
    ...(liveHome === undefined ? {} : { home: liveHome }),
  };
  const relocation = createRelocation(recorded, live);
  const checker = setup.flags.replayCheck ? createReplayChecker({ recorded, live }) : undefined;
  if (checker !== undefined && header.home === undefined) {
    context.warn(
      `The recording does not name its home directory (an older moat wrote it), so paths under ` +
        `the home directory are compared as they are; record it again to compare them too`,
    );
  }
  const userMaxTurns = setup.settings.maxTurns;
  let played = 0;
  let lastReply: RecordedReply | undefined;
  const run = replayRecording<RunOutcome>(recording, {
    ...(setup.flags.prompt === undefined ? {} : { prompt: setup.flags.prompt }),
    relocate: (text) => relocation.relocate(text),
    onReply(reply, options) {
      played++;
      lastReply = reply;
      checker?.onReply(reply, options);
    },
    onUnplayed: (reply) => checker?.onUnplayed(reply),
    warn: context.warn,
    async run(exchange) {
      for (const user of exchange.earlier) {
        runOptions.history.push(user);
        writer?.append(user);
      }
      for (const user of [...exchange.earlier, exchange.prompt]) {
        reporter.replayPrompt?.(
          typeof user.content === "string" ? user.content : resultText(user.content),
        );
      }
      const outcome = await runOnce(setup, engine, {
        ...runOptions,
        // The recorded run's own turn limit, unless the user gives one; its report, if recorded.
        maxTurns: userMaxTurns ?? exchange.turnLimit,
        finalAnswer: userMaxTurns === undefined && exchange.report === true,
        model: exchange.model,
        prompt: exchange.prompt,
        observe: (event) => {
          if (event.type === "message_saved" && event.message.role === "toolResult") {
            checker?.onToolResults(event.message);
            relocation.learn(lastReply?.results?.message, event.message);
          }
        },
      });
      const answered = outcome.result?.stopReason === "completed" ||
        outcome.result?.finalAnswer === true;
      if (!exchange.last && answered) {
        reporter.replayAnswer?.(stats.lastText);
      }
      return outcome;
    },
    classify(outcome, exchange) {
      if (outcome.error?.kind === "replay_exhausted") return "exhausted";
      if (runOptions.signal.aborted || outcome.error !== undefined) return "stopped";
      switch (outcome.result?.stopReason) {
        case "completed":
          return "completed";
        case "maxIterations":
          // The recorded run stopped at the same limit: go on as it did.
          return userMaxTurns === undefined && exchange.turnLimit !== undefined
            ? "completed"
            : "stopped";
        default:
          return "stopped";
      }
    },
  });
  return {
    run,
    summary({ judged }) {
      const check = judged ? checker?.summary() : undefined;
      return {
        file: recording.path,
        played,
        replies: recording.replyCount,
        ...(check === undefined ? {} : { check }),
      };
    },
  };
}
