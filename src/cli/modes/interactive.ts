/** Interactive mode for people: a conversation at the terminal, one run per request. */
import { profileLine } from "../doctor.ts";
import type { UserMessage } from "../../model/types.ts";
import { formatGrants } from "../../policy/grant_hints.ts";
import type { SessionWriter } from "../../session/store.ts";
import { VERSION } from "../../version.ts";
import { compactNow } from "../context.ts";
import { type Engine, openEngine, runOnce, runSummary, stopReasonOf } from "../engine.ts";
import { modelClientOptions } from "../model_options.ts";
import { pricesFor } from "../config.ts";
import { EXIT } from "../exit.ts";
import { writeMessage } from "../io.ts";
import { openSession } from "../open_session.ts";
import { useColor } from "../../term/render/mod.ts";
import { approvalDiffLines } from "../../term/approval_diff.ts";
import { createReplPrompter, runRepl } from "../repl.ts";
import { createRunStats } from "../../report/mod.ts";
import { resumeBanner } from "../sessions.ts";
import type { RunSetup } from "../setup.ts";
import { costOf } from "../../report/usage.ts";
import { knownContextWindow } from "../../model/context_window.ts";
import { createReporter, inGitWorkTree, startInfo } from "./_reporter.ts";
import { replRewind } from "../rewind_repl.ts";

/** Interactive mode: the prompt loop (src/cli/repl.ts) around runOnce, with approvals asked. */
export async function interactiveMode(setup: RunSetup): Promise<number> {
  const { terminal, settings } = setup;
  // A capped diff points at `git diff` only where there is one.
  const inGitRepo = await inGitWorkTree(setup.fs, setup.workspace);
  const reporter = createReporter(setup, true, { inGitRepo });
  const source = setup.lineSource();
  const color = useColor(terminal.isTty("stdout"), setup.env);
  const prompter = createReplPrompter(
    source,
    (t) => terminal.writeStderr(t),
    {
      hold: (held) => reporter.hold?.(held),
      view: terminal,
      preview: (request) =>
        approvalDiffLines(request, {
          cwd: setup.workspace,
          ...(setup.env["HOME"] === undefined ? {} : { home: setup.env["HOME"] }),
          color: useColor(terminal.isTty("stderr"), setup.env),
          columns: terminal.columns(),
        }),
    },
  );
  if (setup.flags.outputSchema !== undefined) {
    writeMessage(
      terminal,
      "moat: '--output-schema' works in print mode only: give the prompt as an argument (or " +
        "pipe it) to get a JSON answer\nRun 'moat --help' for usage.\n",
    );
    return EXIT.usage;
  }
  let writerRef: { writer: SessionWriter | null } = { writer: null };
  let engine: Engine | undefined;
  try {
    const session = await openSession(setup, (m) => reporter.warning(m));
    if (!session.ok) {
      writeMessage(terminal, `moat: ${session.error}\n`);
      return EXIT.usage;
    }
    writerRef = { writer: session.writer };
    const history = session.history;
    const opened = await openEngine(
      setup,
      terminal.isTty("stderr") ? prompter : undefined,
      reporter,
    );
    if (!opened.ok) {
      writeMessage(terminal, `moat: ${opened.error}\n`);
      return EXIT.usage;
    }
    const eng = opened.engine;
    engine = eng;
    reporter.start(startInfo(setup, eng, writerRef.writer?.path ?? null));
    // The user is still typing: the MCP servers start now.
    eng.mcp?.begin();
    if (setup.flags.verbose) writeMessage(terminal, `moat: ${profileLine(setup)}\n`);
    for (
      const w of [
        ...settings.warnings,
        ...eng.sandbox.warnings,
        ...eng.startReporting(),
        ...opened.contextWarnings,
      ]
    ) {
      reporter.warning(w);
    }
    let model = settings.model;
    let client = setup.deps.createModel(
      modelClientOptions(setup, model, (m) => reporter.warning(m)),
    );
    // The workspace and the model are in the first stderr line (the reporter's start).
    const banner = `moat ${VERSION}\n` +
      resumeBanner(history, writerRef.writer?.path) +
      `Type a request; /help lists commands; Ctrl-D exits.\n`;
    return await runRepl({
      terminal,
      source,
      color,
      banner,
      host: {
        async runPrompt(text, signal, getQueued) {
          const stats = createRunStats();
          const outcome = await runOnce(setup, eng, {
            model: client,
            history,
            prompt: { role: "user", content: text },
            signal,
            reporter,
            stats,
            writer: writerRef.writer,
            maxTurns: settings.maxTurns,
            modelName: model,
            getQueuedMessages: () =>
              getQueued().map((content): UserMessage => ({ role: "user", content })),
          });
          await writerRef.writer?.flush();
          const stopReason = stopReasonOf(outcome, signal.aborted);
          // Stops the spinner, explains errors and limits (the text was already streamed) and
          // shows the status line: model, context used, tokens, cost.
          const summary = runSummary(stats, outcome, { stopReason, exitCode: EXIT.ok });
          const prices = pricesFor(settings, model);
          if (prices !== undefined) summary.cost = costOf(stats.usage, prices);
          const window = eng.contexts.get(model)?.window ?? settings.contextWindow ??
            knownContextWindow(model);
          reporter.end({
            ...summary,
            model,
            ...(window === undefined ? {} : { contextWindow: window }),
          });
        },
        model: () => model,
        setModel(name) {
          model = name;
          client = setup.deps.createModel(
            modelClientOptions(setup, name, (m) => reporter.warning(m)),
          );
          return `Model: ${name}`;
        },
        async clear() {
          await writerRef.writer?.flush();
          history.length = 0;
          const { session: _given, resume: _resumed, ...flags } = setup.flags;
          const fresh = await openSession(
            { ...setup, flags: { ...flags, continue: false } },
            (m) => reporter.warning(m),
          );
          writerRef = { writer: fresh.ok ? fresh.writer : null };
          // Written now, so `moat -c` resumes this (still empty) conversation, not the cleared one.
          writerRef.writer?.begin();
          await writerRef.writer?.flush();
          return `Started a new session${
            writerRef.writer === null ? "" : ` (${writerRef.writer.path})`
          }.`;
        },
        async compact(focus, signal) {
          const said = await compactNow(setup, eng, {
            model: client,
            modelName: model,
            history,
            signal,
            reporter,
            writer: writerRef.writer,
            focus,
          });
          await writerRef.writer?.flush();
          return said;
        },
        grants: () => formatGrants(eng.sandbox.grants),
        rewind: async (arg) =>
          replRewind(arg, {
            deps: setup.deps.rewind,
            workspace: setup.workspace,
            env: setup.env,
            grants: eng.sandbox.grants,
            ops: (await import("../../sys/paths.ts")).createDenoScanOps(),
            writer: writerRef.writer,
            history,
          }),
        jobs: async () => await eng.sandbox.listJobs?.() ?? "No background jobs.",
        note: (text) => reporter.note?.(text),
        promptCommands: () => eng.mcp?.promptCommands?.() ?? [],
      },
    });
  } finally {
    reporter.dispose();
    await engine?.close();
    await writerRef.writer?.flush();
  }
}
