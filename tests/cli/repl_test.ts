import assert from "node:assert/strict";
import {
  createLineSource,
  createReplPrompter,
  type ReplHost,
  runRepl,
} from "../../src/cli/repl.ts";
import { createFakeTerminal } from "./_fakes.ts";

function host(log: string[]): ReplHost {
  let model = "m1";
  return {
    async runPrompt(text, signal, getQueued) {
      log.push(`run:${text}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (signal.aborted) log.push("aborted");
      log.push(`queued:${getQueued().join("|")}`);
    },
    model: () => model,
    setModel(name) {
      model = name;
      return `Model: ${name}`;
    },
    clear: () => Promise.resolve("Started a new session."),
    grants: () => "read: /w",
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

Deno.test("runRepl() runs prompts, handles slash commands and exits 0 at end of input", async () => {
  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: true } });
  const log: string[] = [];
  const source = createLineSource(terminal.readLines());
  const done = runRepl({ terminal, source, host: host(log), banner: "hi\n", color: false });
  for (
    const line of ["/help", "/model m2", "/model", "/grants", "/clear", "/nope", "", "question"]
  ) {
    terminal.typeLine(line);
  }
  await tick();
  await new Promise((resolve) => setTimeout(resolve, 20));
  terminal.endInput();
  assert.equal(await done, 0);
  assert.deepEqual(log, ["run:question", "queued:"]);
  for (
    const expected of [
      "/grants",
      "Model: m2",
      "Grants: read: /w",
      "Started a new session.",
      "Unknown command /nope",
    ]
  ) assert.ok(terminal.stdout.includes(expected), expected);
});

Deno.test("runRepl() exits 0 on Ctrl-C at the prompt and 143 on SIGTERM", async () => {
  for (const [signal, code] of [["SIGINT", 0], ["SIGTERM", 143]] as const) {
    const terminal = createFakeTerminal({ tty: { stdin: true } });
    const source = createLineSource(terminal.readLines());
    const done = runRepl({ terminal, source, host: host([]), banner: "", color: false });
    await tick();
    terminal.raise(signal);
    assert.equal(await done, code);
    terminal.endInput();
  }
});

Deno.test("runRepl() aborts the running prompt on Ctrl-C and keeps going", async () => {
  const terminal = createFakeTerminal({ tty: { stdin: true } });
  const log: string[] = [];
  const source = createLineSource(terminal.readLines());
  const done = runRepl({ terminal, source, host: host(log), banner: "", color: false });
  terminal.typeLine("long task");
  await tick();
  terminal.raise("SIGINT");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.match(terminal.stdout, /aborted/);
  terminal.typeLine("/exit");
  assert.equal(await done, 0);
  assert.deepEqual(log, ["run:long task", "aborted", "queued:"]);
  terminal.endInput();
});

Deno.test("createReplPrompter() takes only lines typed after the question, and holds output meanwhile", async () => {
  const terminal = createFakeTerminal();
  const source = createLineSource(terminal.readLines());
  terminal.typeLine("queued message");
  await tick();
  const holds: boolean[] = [];
  let asked = "";
  const prompter = createReplPrompter(source, (t) => void (asked += t), (h) => holds.push(h));
  const answer = prompter.ask({
    toolName: "edit",
    location: { access: "write", path: "/etc/hosts" },
    question: "moat wants to write /etc/hosts (edit). Allow?",
  });
  await tick();
  terminal.typeLine("y");
  assert.equal(await answer, "once");
  assert.match(asked, /Allow\?/);
  assert.deepEqual(holds, [true, false]);
  assert.deepEqual(source.drain(), ["queued message"]);
  terminal.endInput();
});
