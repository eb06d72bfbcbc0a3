/** The reporter each mode writes through, and what it says when a run starts. */
import { formatGrants } from "../../policy/grant_hints.ts";
import type { CliFs } from "../io.ts";
import { VERSION } from "../../version.ts";
import type { Engine } from "../engine.ts";
import { writeMessage } from "../io.ts";
import { createJsonlReporter, createJsonReporter } from "../jsonl.ts";
import { createTextRenderer, useColor } from "../../term/render/mod.ts";
import type { Reporter, RunStartInfo } from "../../report/mod.ts";
import type { RunSetup } from "../setup.ts";
import { findGitRoot } from "../system_prompt.ts";
/** The reporter of a run: text (always in interactive mode), JSON or JSONL. */
export function createReporter(
  setup: RunSetup,
  interactive: boolean,
  options: { plainText?: boolean; inGitRepo?: boolean } = {},
): Reporter {
  const { terminal } = setup;
  const output = interactive ? "text" : setup.settings.output;
  switch (output) {
    case "jsonl":
      return createJsonlReporter({
        writeStdout: (t) => terminal.writeStdout(t),
        writeStderr: (t) => writeMessage(terminal, t),
        includeDeltas: setup.flags.includeDeltas,
        now: setup.now,
      });
    case "json":
      return createJsonReporter({
        writeStdout: (t) => terminal.writeStdout(t),
        writeStderr: (t) => writeMessage(terminal, t),
      });
    case "text": {
      const text: Parameters<typeof createTextRenderer>[0] = {
        writeStdout: (t) => terminal.writeStdout(t),
        writeStderr: (t) => terminal.writeStderr(t),
        // Plain text: the answer is written once at the end, never streamed.
        stdoutIsTty: options.plainText !== true && terminal.isTty("stdout"),
        stderrIsTty: terminal.isTty("stderr"),
        color: useColor(terminal.isTty("stderr"), setup.env),
        cwd: setup.workspace,
        verbose: setup.flags.verbose,
        interactive,
        statusLine: interactive && !setup.flags.quiet,
        columns: () => terminal.columns(),
        clock: setup.clock,
        inGitRepo: options.inGitRepo === true,
      };
      // Interactive answers on a terminal are rendered as markdown. Its module (marked,
      // highlight.js: tens of ms) loads while the person types, never in print mode.
      if (interactive && text.stdoutIsTty) {
        text.markdown = {
          module: import("../../term/markdown.ts"),
          color: useColor(true, setup.env),
        };
      }
      return createTextRenderer(text);
    }
    default: {
      const never: never = output;
      return never;
    }
  }
}

/** Whether `dir` is in a git work tree (it or a parent holds `.git`): looked up once, at start. */
export async function inGitWorkTree(fs: CliFs, dir: string): Promise<boolean> {
  return (await findGitRoot(fs, dir)) !== undefined;
}

/** What the reporter says when a run starts (`run_start`). */
export function startInfo(
  setup: RunSetup,
  engine: Engine,
  session: string | null,
): RunStartInfo {
  const info: RunStartInfo = {
    model: setup.settings.model,
    cwd: setup.workspace,
    grants: setup.grants,
    grantsSummary: formatGrants(setup.grants),
    sandbox: engine.sandbox.mode,
    tools: engine.tools.map((t) => t.name),
    session,
    moatVersion: VERSION,
    project: setup.settings.project,
    notes: setup.grantNotes,
  };
  // Their tools are not in `tools`: they come with a later request, once the server is ready.
  const starting = engine.mcp?.status().filter((s) => s.state === "starting").map((s) => s.name);
  if (starting !== undefined && starting.length > 0) info.mcpStarting = starting;
  const views = (engine.mcp?.status() ?? []).flatMap((s) =>
    s.view === undefined ? [] : [{ name: s.name, view: s.view }]
  );
  if (views.length > 0) info.mcpViews = views;
  const recording = setup.recording;
  if (recording !== undefined) {
    info.model = recording.header.model;
    info.replay = {
      file: recording.path,
      recordedModel: recording.header.model,
      recordedAt: recording.header.createdAt,
      replies: recording.replyCount,
      check: setup.flags.replayCheck,
    };
  } else if (setup.settings.baseUrl !== undefined) {
    info.baseUrl = setup.settings.baseUrl;
  }
  return info;
}
