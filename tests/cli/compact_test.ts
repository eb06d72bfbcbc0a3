import assert from "node:assert/strict";
import { runCli } from "../../src/cli/main.ts";
import type { AssistantMessage, ModelRequest } from "../../src/model/types.ts";
import { emptyUsage } from "../../src/model/types.ts";
import { SUMMARY_INSTRUCTIONS } from "../../src/agent/compaction/summary.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { createFakeCliDeps, createFakeTerminal, createManualClock } from "./_fakes.ts";

function textReply(text: string): AssistantMessage {
  return {
    role: "assistant",
    blocks: [{ type: "text", text }],
    stopReason: "stop",
    usage: emptyUsage(),
  };
}

/**
 * An interactive moat on a TTY in `ws` (manual clock: the spinner moves only when the test
 * ticks) whose model answers `answer` and whose summary request waits for `summary`.
 */
function interactive(
  ws: TempWorkspace,
  summary: (signal: AbortSignal) => Promise<AssistantMessage | null>,
  answer = "ok",
) {
  const requests: ModelRequest[] = [];
  const model = {
    stream: (request: ModelRequest, options: { signal: AbortSignal }) => {
      requests.push(request);
      return request.system === SUMMARY_INSTRUCTIONS
        ? summary(options.signal)
        : Promise.resolve(textReply(answer));
    },
  };
  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: true, stderr: true } });
  const clock = createManualClock();
  const done = runCli(["--no-session"], {
    env: { HOME: ws.dir, OPENAI_API_KEY: "k" },
    cwd: ws.dir,
    terminal,
    clock,
    deps: createFakeCliDeps({ model }).deps,
  });
  // Bounded waits on what moat did: a broken /compact fails the test instead of hanging it.
  const until = async (what: string, ok: () => boolean) => {
    for (let i = 0; i < 2000 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(ok(), `${what} never happened:\n${terminal.stdout}\n---\n${terminal.stderr}`);
  };
  const prompts = () => terminal.stdout.split("› ").length - 1;
  return { terminal, clock, done, requests, until, prompts };
}

const LONG_ANSWER = "The number is seven. ".repeat(200);

Deno.test("/compact at the prompt stops its spinner, brings the prompt back and says what it did", async () => {
  await using ws = await createTempWorkspace();
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  const moat = interactive(ws, async () => {
    await released;
    return textReply("## Done\nThe number 7.");
  }, LONG_ANSWER);
  moat.terminal.typeLine("remember the number 7");
  await moat.until("the first answer", () => moat.requests.length === 1 && moat.prompts() === 2);
  moat.terminal.typeLine("/compact");
  await moat.until("the summary request", () => moat.requests.length === 2);
  // Typed while the summary is written: kept for the prompt, not lost.
  moat.terminal.typeLine("and 8");
  moat.clock.tick(100);
  release();
  await moat.until("the queued line's run", () => moat.requests.length === 3);
  await moat.until("the prompt after it", () => moat.prompts() === 4);
  const after = moat.terminal.stderr.length;
  // However long the person waits at the prompt, no spinner is drawn over it.
  moat.clock.tick(1000);
  assert.equal(moat.terminal.stderr.slice(after), "");
  moat.terminal.endInput();
  assert.equal(await moat.done, 0, moat.terminal.stderr);
  assert.match(
    moat.terminal.stderr,
    /moat: compacted [\d,]+ → [\d,]+ tokens \(manual\): summarised/,
  );
  assert.doesNotMatch(moat.terminal.stderr, /to fit the context window/);
  const users = moat.requests[2]?.messages.flatMap((m) => m.role === "user" ? [m.content] : []);
  assert.equal(JSON.stringify(users).includes("and 8"), true);
});

Deno.test("/compact at the prompt keeps no spinner drawn once it is done", async () => {
  await using ws = await createTempWorkspace();
  const moat = interactive(ws, () => Promise.resolve(textReply("## Done\nSeven.")), LONG_ANSWER);
  moat.terminal.typeLine("remember the number 7");
  await moat.until("the first answer", () => moat.prompts() === 2);
  moat.terminal.typeLine("/compact");
  await moat.until("the prompt after /compact", () => moat.prompts() === 3);
  const after = moat.terminal.stderr.length;
  moat.clock.tick(1000);
  assert.equal(moat.terminal.stderr.slice(after), "", "a spinner was drawn over the prompt");
  // The spinner's line was erased before the prompt came back.
  assert.ok(moat.terminal.stderr.endsWith("\r\x1b[K"), JSON.stringify(moat.terminal.stderr));
  moat.terminal.endInput();
  assert.equal(await moat.done, 0, moat.terminal.stderr);
});

Deno.test("Ctrl-C during /compact stops the summary and moat stays at the prompt", async () => {
  await using ws = await createTempWorkspace();
  const moat = interactive(
    ws,
    (signal) =>
      new Promise((resolve) =>
        signal.addEventListener("abort", () => resolve(null), { once: true })
      ),
    LONG_ANSWER,
  );
  moat.terminal.typeLine("remember the number 7");
  await moat.until("the first answer", () => moat.prompts() === 2);
  moat.terminal.typeLine("/compact");
  await moat.until("the summary request", () => moat.requests.length === 2);
  moat.terminal.raise("SIGINT");
  await moat.until("the prompt after the abort", () => moat.prompts() === 3);
  assert.match(moat.terminal.stdout, /compaction aborted; the conversation is unchanged/);
  // A second press meant for the same compaction does not exit either.
  moat.terminal.raise("SIGINT");
  await moat.until("the prompt again", () => moat.prompts() === 4);
  moat.terminal.typeLine("still here?");
  await moat.until("the next run", () => moat.requests.length === 3);
  moat.terminal.endInput();
  assert.equal(await moat.done, 0, moat.terminal.stderr);
});

Deno.test("/compact keeps the conversation when the summary would be larger than what it replaces", async () => {
  await using ws = await createTempWorkspace();
  const moat = interactive(ws, () => Promise.resolve(textReply("A long summary. ".repeat(500))));
  moat.terminal.typeLine("remember the number 7");
  await moat.until("the first answer", () => moat.prompts() === 2);
  moat.terminal.typeLine("/compact");
  await moat.until("the prompt after /compact", () => moat.prompts() === 3);
  moat.terminal.typeLine("which number?");
  await moat.until("the next run", () => moat.requests.length === 3);
  moat.terminal.endInput();
  assert.equal(await moat.done, 0, moat.terminal.stderr);
  assert.match(
    moat.terminal.stdout,
    /Nothing to compact: the summary \(~[\d,]+ tokens\) would be larger than the [\d,]+ tokens it replaces; the conversation is unchanged\./,
  );
  assert.doesNotMatch(moat.terminal.stderr, /compacted/);
  // The next request carries the conversation as it was, without the summary.
  const sent = JSON.stringify(moat.requests[2]?.messages);
  assert.equal(sent.includes("remember the number 7"), true);
  assert.equal(sent.includes("A long summary."), false);
});
