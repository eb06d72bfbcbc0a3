/** Print mode for scripts and CI: the prompt from the argument and stdin, honest exit codes. */
import { profileLine } from "../doctor.ts";
import type { ModelClient, UserMessage } from "../../model/types.ts";
import type { SessionWriter } from "../../session/store.ts";
import { DEFAULT_PRINT_MAX_TURNS, pricesFor } from "../config.ts";
import { type Engine, openEngine, runOnce, runSummary, stopReasonOf } from "../engine.ts";
import { modelClientOptions } from "../model_options.ts";
import { EXIT } from "../exit.ts";
import { type CliSignal, writeMessage } from "../io.ts";
import { checkResume, openSession } from "../open_session.ts";
import { createRunStats, type RunStopReason } from "../../report/mod.ts";
import type { RunSetup } from "../setup.ts";
import type { JobDetails } from "../../tools/mod.ts";
import { costOf } from "../../report/usage.ts";
import { type JobEvent, JobEvents, withJobEvents } from "../../report/jobs.ts";
import { createReporter, startInfo } from "./_reporter.ts";
import { runForAnswer } from "./_answer.ts";
import { loadOutputSchema, type OutputSchema, SCHEMA_RETRIES } from "../structured.ts";

/** How long a prompt argument waits for the first byte of a piped stdin before going on without it. */
export const STDIN_GRACE_MS = 2000;

/** The prompt of print mode: the argument, stdin, or both (stdin attached after the prompt). */
async function readPrintPrompt(
  setup: RunSetup,
): Promise<{ prompt: string; warning?: string } | { error: string }> {
  const { flags, terminal } = setup;
  if (terminal.isTty("stdin")) {
    if (flags.prompt === undefined) {
      return { error: "No prompt: pass one as an argument or pipe it on stdin" };
    }
    return { prompt: flags.prompt };
  }
  // With a prompt argument, a stdin nobody writes to (common in CI) must not hang the run.
  const input = await terminal.readStdin({
    maxBytes: MAX_STDIN_BYTES,
    ...(flags.prompt === undefined ? {} : { firstChunkTimeoutMs: STDIN_GRACE_MS }),
  });
  const stdin = input === null ? null : input.text;
  const cut = input?.truncated === true ? stdinTruncation() : undefined;
  const withCut = (prompt: string) =>
    cut === undefined ? { prompt } : { prompt, warning: cut.warning };
  if (flags.prompt === undefined) {
    const piped = (stdin ?? "").replace(/\r?\n$/, "");
    if (piped.trim() === "") return { error: "No prompt: stdin was empty" };
    return withCut(cut === undefined ? piped : `${piped}\n\n${cut.note}`);
  }
  if (stdin === null) {
    return {
      prompt: flags.prompt,
      warning:
        `Nothing arrived on stdin within ${
          STDIN_GRACE_MS / 1000
        } s, so it was not attached to the prompt. To attach a slow command's output, save it ` +
        `first (cmd > out.txt; moat "…" < out.txt); to skip stdin, use < /dev/null`,
    };
  }
  if (stdin.trim() === "") return { prompt: flags.prompt };
  const attached = `${stdin.replace(/\n$/, "")}${cut === undefined ? "" : `\n${cut.note}`}`;
  return withCut(`${flags.prompt}\n\n<stdin>\n${attached}\n</stdin>`);
}

/** Most bytes of piped stdin read into the prompt (more than any model's context holds). */
export const MAX_STDIN_BYTES = 4 * 1024 * 1024;

function stdinTruncation(): { note: string; warning: string } {
  const size = `${MAX_STDIN_BYTES / 1024 / 1024} MiB`;
  return {
    note: `[stdin was cut: only its first ${size} are included]`,
    warning: `stdin is larger than ${size}; only its first ${size} were sent to the model. ` +
      `To work on a bigger input, save it to a file in the workspace and ask moat to read it`,
  };
}

/** Print mode's exit code for each way a run ends (4 for denials is decided by the caller). */
const PRINT_EXIT_CODES: Record<RunStopReason, number> = {
  completed: EXIT.ok,
  error: EXIT.modelError,
  maxIterations: EXIT.maxTurns,
  aborted: EXIT.sigint,
  interrupted: EXIT.sigint,
  terminated: EXIT.sigterm,
  contextExhausted: EXIT.contextExhausted,
  limitReached: EXIT.maxTurns,
  schemaMismatch: EXIT.schemaMismatch,
};

/** Print mode: one prompt (or a replay) run to the end, reported as text, JSON or JSONL. */
export async function printMode(setup: RunSetup): Promise<number> {
  const { terminal, settings } = setup;
  // With --output-schema stdout gets only the JSON at the end: nothing streams.
  const jobEvents = new JobEvents();
  const reporter = withJobEvents(
    createReporter(setup, false, { plainText: setup.flags.outputSchema !== undefined }),
    jobEvents,
  );
  const controller = new AbortController();
  let signalled: CliSignal | undefined;
  let force: () => void = () => {};
  const forced = new Promise<"forced">((resolve) => force = () => resolve("forced"));
  let wake: () => void = () => {};
  const firstSignal = new Promise<"signal">((resolve) => wake = () => resolve("signal"));
  const handler = (signal: CliSignal) => () => {
    if (signalled === undefined) {
      signalled = signal;
      controller.abort();
      wake();
    } else {
      // A second signal: stop waiting for the abort grace period.
      force();
    }
  };
  const unsubscribe = [
    terminal.onSignal("SIGINT", handler("SIGINT")),
    terminal.onSignal("SIGTERM", handler("SIGTERM")),
  ];
  // Warnings found before the run starts wait for `run_start` (the first JSONL line); if setup
  // fails, they go to stderr with the error.
  let started = false;
  const pending: string[] = [];
  const warn = (message: string) => started ? reporter.warning(message) : pending.push(message);
  const setupFailed = (message: string, code: number = EXIT.usage) => {
    for (const w of pending.splice(0)) writeMessage(terminal, `moat: warning: ${w}\n`);
    writeMessage(terminal, `moat: ${message}\n`);
    return code;
  };
  // A signal before the run starts (e.g. while waiting for stdin) ends moat at once.
  const signalledBeforeStart = () =>
    setupFailed(
      `${signalled === "SIGINT" ? "interrupted" : "terminated"} before the run started`,
      signalled === "SIGINT" ? EXIT.sigint : EXIT.sigterm,
    );
  let engine: Engine | undefined;
  let writer: SessionWriter | null = null;
  try {
    const resume = await checkResume(setup);
    if (!resume.ok) return setupFailed(resume.error);
    // A replay's prompts come from the recording (or the argument); stdin is not read.
    const read = setup.recording !== undefined
      ? { prompt: setup.flags.prompt }
      : await Promise.race([readPrintPrompt(setup), firstSignal]);
    if (read === "signal") return signalledBeforeStart();
    if ("error" in read) {
      return setupFailed(`${read.error}\nRun 'moat --help' for usage.`);
    }
    if ("warning" in read && read.warning !== undefined) warn(read.warning);
    const ignored = (["model", "baseUrl", "apiKeyEnv"] as const).filter((k) =>
      setup.recording !== undefined && setup.flags[k] !== undefined
    );
    if (ignored.length > 0) {
      const names = { model: "--model", baseUrl: "--base-url", apiKeyEnv: "--api-key-env" };
      warn(
        `${ignored.map((k) => `'${names[k]}'`).join(", ")} ${
          ignored.length === 1 ? "has" : "have"
        } no effect in a replay: the model's replies come from the recording`,
      );
    }
    let schema: OutputSchema | undefined;
    if (setup.flags.outputSchema !== undefined) {
      if (setup.recording !== undefined) {
        warn("'--output-schema' has no effect in a replay: the answers come from the recording");
      } else {
        const loaded = await loadOutputSchema(setup, setup.flags.outputSchema);
        if (!loaded.ok) return setupFailed(loaded.error);
        schema = loaded.schema;
      }
    }
    const session = await openSession(
      setup,
      warn,
      resume.path === undefined ? {} : { resumed: resume.path },
    );
    if (!session.ok) return setupFailed(session.error);
    writer = session.writer;
    const opened = await openEngine(setup, undefined, reporter);
    if (!opened.ok) return setupFailed(opened.error);
    engine = opened.engine;
    if (signalled !== undefined) return signalledBeforeStart();
    reporter.start(startInfo(setup, engine, writer?.path ?? null));
    started = true;
    if (setup.flags.verbose && setup.recording === undefined) {
      writeMessage(setup.terminal, `moat: ${profileLine(setup)}\n`);
    }
    for (
      const w of [
        ...setup.settings.warnings,
        ...pending.splice(0),
        ...engine.sandbox.warnings,
        ...engine.startReporting(),
        ...opened.contextWarnings,
      ]
    ) {
      reporter.warning(w);
    }

    const stats = createRunStats();
    const runOptions = {
      history: session.history,
      signal: controller.signal,
      reporter,
      stats,
      writer,
      maxTurns: settings.maxTurns ?? DEFAULT_PRINT_MAX_TURNS,
    };
    const replay = setup.recording === undefined
      ? undefined
      // Loaded only for a replay: a run against a model does not need its graph.
      : (await import("./replay.ts")).startReplay(setup, opened.engine, {
        recording: setup.recording,
        runOptions,
        warn,
      });
    const model = replay === undefined
      ? setup.deps.createModel(modelClientOptions(setup, settings.model, warn))
      : undefined;
    // Never empty here: readPrintPrompt fails without a prompt.
    const prompt: UserMessage = { role: "user", content: read.prompt ?? "" };
    const answered = schema === undefined || model === undefined
      ? undefined
      : runForAnswer(schema, prompt, {
        run: (next, answer) =>
          runOnce(setup, opened.engine, { ...runOptions, model, prompt: next, answer }),
        lastText: () => stats.lastText,
      });
    const run = replay?.run ?? answered?.then((a) => a.outcome) ??
      runOnce(setup, opened.engine, { ...runOptions, model: model as ModelClient, prompt });
    // The run is forced to end only by a second signal; a settled run's outcome is in `run`.
    const outcome = await Promise.race([run, forced]);
    const settled = outcome === "forced" ? {} : outcome;
    let stopReason: RunStopReason = signalled === "SIGINT"
      ? "interrupted"
      : signalled === "SIGTERM"
      ? "terminated"
      : stopReasonOf(settled, false);
    const answer = outcome === "forced" || answered === undefined ? undefined : await answered;
    if (stopReason === "completed" && answer?.problems !== undefined) {
      stopReason = "schemaMismatch";
    }
    // A verdict needs a replay that went through the recording: not one stopped by a signal or
    // a failure (running out of replies is how the recording itself ends).
    const judged = stopReason === "completed" || stopReason === "maxIterations" ||
      settled.error?.kind === "replay_exhausted";
    const replaySummary = replay?.summary({ judged });
    const differing = (replaySummary?.check?.differing ?? 0) > 0;
    // A failed check outranks the turn limit and --fail-on-deny; failures and signals keep theirs.
    const exitCode = differing && (stopReason === "completed" || stopReason === "maxIterations")
      ? EXIT.replayMismatch
      : stopReason === "completed" && settings.failOnDeny && stats.denied > 0
      ? EXIT.denied
      : PRINT_EXIT_CODES[stopReason];
    // A structured answer is the answer, whatever text the last reply had.
    if (stopReason === "completed" && answer?.value === undefined && stats.lastText.trim() === "") {
      reporter.warning("The model finished without an answer: its final reply was empty");
    }
    const summary = runSummary(stats, settled, { stopReason, exitCode });
    if (answer?.value !== undefined && stopReason === "completed") {
      // stdout gets only the JSON.
      summary.structured = answer.value;
      summary.text = JSON.stringify(answer.value);
    } else if (answer?.problems !== undefined && schema !== undefined) {
      summary.error = {
        kind: "schema_mismatch",
        message: `The final answer does not match the output schema "${schema.file}" after ` +
          `asking ${SCHEMA_RETRIES} more times: ${answer.problems.slice(0, 5).join("; ")}`,
      };
    }
    const prices = pricesFor(settings, settings.model);
    if (prices !== undefined) summary.cost = costOf(stats.usage, prices);
    if (replaySummary !== undefined) summary.replay = replaySummary;
    // Save and clean up before the final report so "run_end" means everything is settled.
    const finished = engine;
    engine = undefined;
    // Background jobs end with the run: say which were still running, with their last lines.
    for (const line of await stoppedJobLines(finished, (e) => reporter.job?.(e), jobEvents)) {
      reporter.warning(line);
    }
    await finished.close();
    await writer?.flush();
    reporter.end(summary);
    return exitCode;
  } finally {
    reporter.dispose();
    await engine?.close();
    await writer?.flush();
    for (const off of unsubscribe) off();
  }
}

/**
 * Stops the run's background jobs and reports their exits; one line per job that was still
 * running.
 */
async function stoppedJobLines(
  engine: Engine,
  report: (event: JobEvent) => void,
  jobEvents: JobEvents,
): Promise<string[]> {
  const stops = (await engine.sandbox.stopJobs?.() ?? []).map((out) =>
    out.details as JobDetails | undefined
  );
  for (const event of jobEvents.atRunEnd(stops)) report(event);
  return stops.flatMap((details) => {
    const job = details?.job;
    if (job === undefined || details?.stopped !== true) return [];
    const last = job.lastLines.trimEnd().split("\n").slice(-5).join("\n  ");
    return [
      `Stopped background job "${job.id}" (\`${job.command}\`) at the end of the run` +
      (last === "" ? " (it printed nothing)" : `; its last lines:\n  ${last}`),
    ];
  });
}
