// deno-lint-ignore-file no-control-regex
import assert from "node:assert/strict";
import { runCli } from "../../src/cli/main.ts";
import type { AssistantMessage, ModelClient } from "../../src/model/types.ts";
import { emptyUsage } from "../../src/model/types.ts";
import { moduleGraph } from "../support/architecture.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { createFakeCliDeps, createFakeTerminal } from "./_fakes.ts";
// Loaded here first, so that moat's own (dynamic) import of it is done before the answer
// streams in: the fake model answers at once, faster than a first load.
import "../../src/term/markdown.ts";

const ANSWER = "# Plan\n\n- first item\n- second item\n\n```ts\nconst a = 1;\n```\n";

const strip = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, "");

/** A model that streams ANSWER in small pieces. */
const model: ModelClient = {
  stream(_request, options) {
    options.onEvent?.({ type: "message_start" });
    for (let i = 0; i < ANSWER.length; i += 4) {
      options.onEvent?.({ type: "text_delta", delta: ANSWER.slice(i, i + 4) });
    }
    const reply: AssistantMessage = {
      role: "assistant",
      blocks: [{ type: "text", text: ANSWER }],
      stopReason: "stop",
      usage: emptyUsage(),
    };
    return Promise.resolve(reply);
  },
};

/** Runs one interactive request and returns what stdout got (the prompt lines left out). */
async function answerOn(
  tty: { stdout: boolean },
  env: Record<string, string> = {},
): Promise<string> {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: tty.stdout, stderr: true } });
  terminal.typeLine("plan it");
  terminal.endInput();
  const code = await runCli(["--no-session", "-q"], {
    env: { HOME: ws.dir, OPENAI_API_KEY: "k", ...env },
    cwd: ws.dir,
    terminal,
    deps: createFakeCliDeps({ model }).deps,
  });
  assert.equal(code, 0, terminal.stderr);
  return terminal.stdout;
}

Deno.test("interactive mode renders the answer as markdown when stdout is a terminal", async () => {
  const out = await answerOn({ stdout: true });
  assert.match(out, /\x1b\[1m\x1b\[36mPlan/);
  assert.ok(strip(out).includes("Plan\n\n• first item\n• second item\n"), JSON.stringify(out));
  assert.ok(!out.includes("# Plan") && !out.includes("- first"), JSON.stringify(out));
});

Deno.test("interactive mode renders without colour under NO_COLOR", async () => {
  const out = await answerOn({ stdout: true }, { NO_COLOR: "1" });
  assert.ok(!out.includes("\x1b[1m") && !out.includes("\x1b[36m"), JSON.stringify(out));
  assert.match(out, /^• first item$/m);
});

Deno.test("interactive mode writes the answer as the model wrote it when stdout is not a terminal", async () => {
  const out = await answerOn({ stdout: false });
  assert.ok(out.includes(ANSWER), JSON.stringify(out));
});

Deno.test("print mode and the way to the first request never load marked or highlight.js", async () => {
  const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
  const starts = ["main.ts", "src/cli/modes/print.ts", "src/cli/modes/interactive.ts"];
  const graph = new Map((await moduleGraph(root, starts)).map((m) => [m.path, m]));
  // What these modules load statically (a dynamic import is not followed).
  const reached = new Set<string>();
  const visit = (path: string) => {
    if (reached.has(path)) return;
    reached.add(path);
    for (const next of graph.get(path)?.imports ?? []) visit(next);
  };
  starts.forEach(visit);
  const loading = [];
  for (const path of reached) {
    const text = await Deno.readTextFile(`${root}/${path}`);
    if (/from "(marked|highlight\.js)[^"]*"|import "(marked|highlight\.js)/.test(text)) {
      loading.push(path);
    }
  }
  assert.ok(reached.has("src/term/render/_answer.ts"));
  assert.deepEqual(loading, []);
  assert.ok(!reached.has("src/term/markdown.ts"));
});
