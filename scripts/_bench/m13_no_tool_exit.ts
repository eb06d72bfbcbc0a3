/**
 * Measure 13: the exit of a run that calls no tool. The fake server answers with text (at once,
 * and after 300 ms), in a git workspace (the README's case: the tool host's view has a placeholder
 * for each run-later entry), and the figure is how long after the reply ended (the fake server
 * sent its last event) the moat process exited: the tool host started at the start, sent no
 * call, must not hold the exit back, and nothing may be left in the workspace. Baseline: an empty
 * `deno run` with the same flags, spawn to exit.
 */
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../../tests/support/fake_openai.ts";
import { readStartTask } from "../compile.ts";
import type { Measure } from "./measure.ts";
import { timeCommand } from "./run_cmd.ts";
import { summarize } from "./stats.ts";
import { ratio, type Row } from "./table.ts";
import { moatRunArgs, moatRunSetup } from "./moat_run.ts";
import { entryNames } from "../../tests/support/workspace.ts";

/** The reply's delays: at once (the host still starting), and a real model's least. */
const MODEL_DELAYS_MS = [0, 300];

/** Measure 13. */
export const noToolExit: Measure = {
  id: 13,
  name: "no-tool-exit",
  title: "Exit of a run without a tool call",
  async run(env) {
    const start = await readStartTask(join(env.projectRoot, "deno.json"));
    const { ws, childEnv } = await moatRunSetup(env, "no-tool-exit");
    await Deno.writeTextFile(join(ws, "a.txt"), "a file\n");
    const git = await new Deno.Command("git", { args: ["init", "-q"], cwd: ws }).output();
    if (!git.success) throw new Error(`git init failed: ${new TextDecoder().decode(git.stderr)}`);
    const before = await entryNames(ws);
    // The reply's end: when the server sent its last event (not the delay's end: under load its
    // timer and its writes lag by several ms, which is none of moat's time).
    let repliedAt = 0;
    await using server = await startFakeOpenAI({
      onStreamEnd: () => repliedAt = performance.now(),
    });
    const args = moatRunArgs(env, start, { ws, baseURL: server.baseURL, prompt: "say hi" });
    const once = async (delayMs: number): Promise<{ ms: number; mode: string }> => {
      repliedAt = 0;
      server.script(reply.text("hi", { delayMs }));
      const child = env.spawn(env.deno, {
        args,
        cwd: env.projectRoot,
        env: childEnv,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      });
      const exited = child.status.then((status) => ({ status, at: performance.now() }));
      const [stdout, stderr, { status, at }] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        exited,
      ]);
      if (!status.success || repliedAt === 0) {
        throw new Error(`moat run failed (code ${status.code}):\n${stderr}${stdout}`);
      }
      const after = await entryNames(ws);
      if (after.join("\n") !== before.join("\n")) {
        throw new Error(`the run left entries in the workspace: ${after.join(", ")}`);
      }
      return {
        ms: at - repliedAt,
        mode: /without the OS sandbox/.test(stderr) ? "worker" : "bwrap",
      };
    };
    const empty = env.path("no-tool-exit-empty.ts");
    await Deno.writeTextFile(empty, "// intentionally empty: the baseline\n");
    const baseline = async () => {
      const r = await timeCommand(env, env.deno, ["run", ...start.flags, empty], {
        cwd: env.projectRoot,
      });
      if (r.code !== 0) throw new Error(`empty script failed: ${r.stderr}`);
      return r.ms;
    };
    // Deno's module cache warm first, so every run measures the exit, not compilation.
    await once(0);
    await baseline();
    const samples = new Map<number, number[]>(MODEL_DELAYS_MS.map((d) => [d, []]));
    const baselineMs: number[] = [];
    let mode = "";
    for (let i = 0; i < env.options.runs; i++) {
      for (const delayMs of MODEL_DELAYS_MS) {
        const r = await once(delayMs);
        samples.get(delayMs)!.push(r.ms);
        mode = r.mode;
      }
      baselineMs.push(await baseline());
    }
    const b = summarize(baselineMs);
    return MODEL_DELAYS_MS.map((delayMs): Row => {
      const s = summarize(samples.get(delayMs)!);
      return {
        id: 13,
        measure: `Exit after a ${delayMs} ms text reply, no tool call (sandbox: ${mode})`,
        moat: { stat: s, unit: "ms" },
        baseline: { stat: b, unit: "ms" },
        baselineLabel: "empty script, same flags",
        compare: ratio(s.median, b.median),
        target: "≤ 1× empty",
        met: s.median <= b.median,
        note: `\`moat "say hi"\` in a git workspace against the fake server, whose only reply ` +
          `(text) is delayed ${delayMs} ms: time from the end of that reply (the server sent its ` +
          "last event) to the exit of the " +
          "moat process (the answer printed, the uncalled tool host ended with its sandbox, the " +
          "placeholders removed; nothing is left in the workspace), vs spawn to exit of an " +
          "empty `deno run` with the start task's flags.",
      };
    });
  },
};
