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
    compact(focus) {
      log.push(`compact:${focus}`);
      return Promise.resolve(focus === "" ? "Nothing to compact yet." : "");
    },
    grants: () => "read: /w",
    rewind(arg) {
      log.push(`rewind:${arg}`);
      return Promise.resolve(`Rewound the files to before turn ${arg}: 1 restored.`);
    },
    jobs: () => Promise.resolve('Job "1" (`serve`, pid 7) is running.'),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

/**
 * Starts a REPL whose runs wait for `release()` and then record the queued lines they get;
 * `over` adds to or replaces the host's members.
 */
function replWithHeldRun(over: Partial<ReplHost> = {}) {
  const terminal = createFakeTerminal({ tty: { stdin: true } });
  const delivered: string[][] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  let running = false;
  const source = createLineSource(terminal.readLines());
  const done = runRepl({
    terminal,
    source,
    banner: "",
    color: false,
    pasteWindowMs: 1,
    host: {
      ...host([]),
      async runPrompt(_text, _signal, getQueued) {
        running = true;
        await released;
        delivered.push(getQueued());
      },
      ...over,
    },
  });
  return { terminal, source, done, delivered, release, running: () => running };
}

Deno.test("runRepl() runs prompts, handles slash commands and exits 0 at end of input", async () => {
  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: true } });
  const log: string[] = [];
  const source = createLineSource(terminal.readLines());
  const done = runRepl({ terminal, source, host: host(log), banner: "hi\n", color: false });
  for (
    const line of [
      "/help",
      "/model m2",
      "/model",
      "/grants",
      "/rewind 2 chat",
      "/jobs",
      "/clear",
      "/nope",
      "",
      "question",
    ]
  ) {
    terminal.typeLine(line);
  }
  await tick();
  await new Promise((resolve) => setTimeout(resolve, 20));
  terminal.endInput();
  assert.equal(await done, 0);
  assert.deepEqual(log, ["rewind:2 chat", "run:question", "queued:"]);
  for (
    const expected of [
      "/grants",
      "/rewind [N]",
      "Rewound the files to before turn 2 chat: 1 restored.",
      "Model: m2",
      "Grants: read: /w",
      'Job "1" (`serve`, pid 7) is running.',
      "/jobs          list the background jobs",
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
  // The run starts once the paste window has passed.
  while (!log.includes("run:long task")) await tick();
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
  const prompter = createReplPrompter(source, (t) => void (asked += t), {
    hold: (h) => holds.push(h),
  });
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

Deno.test("runRepl() sends a multi-line paste as one request; lines typed ahead stay separate", async () => {
  const terminal = createFakeTerminal({ tty: { stdin: true } });
  const log: string[] = [];
  const source = createLineSource(terminal.readLines());
  const done = runRepl({ terminal, source, host: host(log), banner: "", color: false });
  await tick();
  // A paste: the lines arrive together while the prompt waits (one starts with "/").
  for (const line of ["fix this error:", "/usr/bin/foo: not found", "thanks"]) {
    terminal.typeLine(line);
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(log, ["run:fix this error:\n/usr/bin/foo: not found\nthanks", "queued:"]);
  // Lines already waiting when the prompt comes back (typed ahead) are separate requests.
  const ahead = createFakeTerminal({ tty: { stdin: true } });
  const aheadLog: string[] = [];
  const aheadSource = createLineSource(ahead.readLines());
  ahead.typeLine("first");
  ahead.typeLine("second");
  await tick();
  const aheadDone = runRepl({
    terminal: ahead,
    source: aheadSource,
    host: host(aheadLog),
    banner: "",
    color: false,
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  ahead.endInput();
  assert.equal(await aheadDone, 0);
  assert.deepEqual(aheadLog, ["run:first", "queued:second"]);
  terminal.endInput();
  assert.equal(await done, 0);
});

Deno.test("runRepl() does not exit on a second Ctrl-C pressed right after one that aborted a run", async () => {
  const terminal = createFakeTerminal({ tty: { stdin: true } });
  const log: string[] = [];
  const source = createLineSource(terminal.readLines());
  const done = runRepl({ terminal, source, host: host(log), banner: "", color: false });
  terminal.typeLine("long task");
  while (!log.includes("run:long task")) await tick();
  terminal.raise("SIGINT");
  while (!terminal.stdout.includes("aborted —")) await tick();
  terminal.raise("SIGINT");
  await tick();
  assert.match(terminal.stdout, /Ctrl-C again or Ctrl-D exits/);
  terminal.typeLine("next question");
  while (!log.includes("run:next question")) await tick();
  terminal.endInput();
  assert.equal(await done, 0);
});

Deno.test("createReplPrompter() shows a question with control characters and look-alike slashes escaped", async () => {
  const terminal = createFakeTerminal();
  const source = createLineSource(terminal.readLines());
  let asked = "";
  const prompter = createReplPrompter(source, (t) => void (asked += t));
  const disguised = "/w/x\r\x1b[2Kmoat wants to write \u2215tmp\u2215scratch.txt";
  const answer = prompter.ask({
    toolName: "write",
    location: { access: "write", path: disguised },
    question: `moat wants to write ${disguised} (write). Allow?`,
  });
  await tick();
  terminal.typeLine("n");
  assert.equal(await answer, "deny");
  assert.ok(![..."\r\x1b\u2215"].some((c) => asked.includes(c)), JSON.stringify(asked));
  assert.ok(asked.includes("/w/x\\u000d\\u001b[2Kmoat wants to write \\u2215tmp"), asked);
});

Deno.test("runRepl() shows a line typed during a run as queued, and again when the model gets it", async () => {
  const notes: string[] = [];
  const { terminal, done, delivered, release, running } = replWithHeldRun({
    note: (text) => notes.push(text),
  });
  terminal.typeLine("first");
  while (!running()) await tick();
  terminal.typeLine("more please");
  while (notes.length === 0) await tick();
  assert.deepEqual(notes, ["queued: more please"]);
  release();
  while (delivered.length === 0) await tick();
  assert.deepEqual(delivered, [["more please"]]);
  assert.deepEqual(notes, ["queued: more please", "› more please"]);
  terminal.endInput();
  assert.equal(await done, 0);
});

Deno.test("runRepl() keeps a command typed during a run from the model and runs it at the prompt", async () => {
  const { terminal, source, done, delivered, release, running } = replWithHeldRun();
  terminal.typeLine("first");
  while (!running()) await tick();
  terminal.typeLine("note this");
  terminal.typeLine("/model m9");
  while (source.buffered < 2) await tick();
  release();
  while (!terminal.stdout.includes("Model: m9")) await tick();
  assert.deepEqual(delivered, [["note this"]]);
  // The command typed ahead is shown on the prompt's line before it runs.
  assert.match(terminal.stdout, /› \/model m9\nModel: m9\n/);
  terminal.endInput();
  assert.equal(await done, 0);
});

Deno.test("createLineSource() tells a line editor who waits, what to remember and when a run is busy", async () => {
  const terminal = createFakeTerminal({ tty: { stdin: true } });
  const calls: string[] = [];
  const source = createLineSource(terminal.readLines(), {
    attend: ({ remember }) => calls.push(`attend ${remember}`),
    detach: () => calls.push("detach"),
    setBusy: (busy) => calls.push(`busy ${busy}`),
    close: () => calls.push("close"),
  });
  const prompt = source.next();
  terminal.typeLine("request");
  assert.equal(await prompt, "request");
  source.setBusy(true);
  const answer = createReplPrompter(source, () => {}).ask({
    toolName: "read",
    location: { access: "read", path: "/x" },
    question: "Allow?",
  });
  await tick();
  terminal.typeLine("n");
  assert.equal(await answer, "deny");
  source.setBusy(false);
  source.close();
  assert.equal(await source.next(), null);
  assert.deepEqual(calls, [
    "attend true",
    "detach",
    "busy true",
    "attend false",
    "detach",
    "busy false",
    "close",
  ]);
  terminal.endInput();
});

Deno.test("runRepl() /compact passes the focus to the host and shows what it says", async () => {
  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: true } });
  const log: string[] = [];
  const source = createLineSource(terminal.readLines());
  const done = runRepl({ terminal, source, host: host(log), banner: "", color: false });
  terminal.typeLine("/compact keep the API decisions");
  terminal.typeLine("/compact");
  terminal.endInput();
  assert.equal(await done, 0);
  assert.deepEqual(log, ["compact:keep the API decisions", "compact:"]);
  assert.match(terminal.stdout, /Nothing to compact yet\./);
  assert.doesNotMatch(terminal.stdout, /Unknown command/);
});

Deno.test("runRepl() runs a prompt command's expansion, says what is missing, and lists it in /help", async () => {
  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: true } });
  const log: string[] = [];
  const source = createLineSource(terminal.readLines());
  const expanded: string[] = [];
  const done = runRepl({
    terminal,
    source,
    banner: "",
    color: false,
    host: {
      ...host(log),
      promptCommands: () => [{
        name: "/fx:greet",
        usage: "/fx:greet <name>",
        description: "Greets \x1b[31msomeone.",
        expand(argText) {
          expanded.push(argText);
          return Promise.resolve(
            argText === ""
              ? { ok: false, error: "Missing required argument of /fx:greet: name." }
              : { ok: true, text: `Greet ${argText}.` },
          );
        },
      }],
    },
  });
  for (const line of ["/help", "/fx:greet", "/fx:greet  Ada  L"]) terminal.typeLine(line);
  terminal.endInput();
  assert.equal(await done, 0);
  assert.deepEqual(expanded, ["", "Ada  L"]);
  assert.deepEqual(log, ["run:Greet Ada  L.", "queued:"]);
  assert.ok(terminal.stdout.includes("Missing required argument of /fx:greet: name.\n"));
  assert.ok(
    terminal.stdout.includes(
      "MCP prompts (/<server>:<prompt>; arguments in order, or name=value; quotes keep spaces):\n" +
        "  /fx:greet <name>\n                 Greets \\u001b[31msomeone.",
    ),
    terminal.stdout,
  );
});

Deno.test("runRepl() keeps typed text undrawn while /compact runs and draws it again after", async () => {
  const terminal = createFakeTerminal({ tty: { stdin: true } });
  const busy: boolean[] = [];
  const control = {
    attend: () => {},
    detach: () => {},
    setBusy: (value: boolean) => void busy.push(value),
    close: () => {},
  };
  const source = createLineSource(terminal.readLines(), control);
  let busyDuring: boolean | undefined;
  const done = runRepl({
    terminal,
    source,
    banner: "",
    color: false,
    host: {
      ...host([]),
      compact() {
        busyDuring = busy.at(-1);
        return Promise.resolve("");
      },
    },
  });
  terminal.typeLine("/compact");
  for (let i = 0; i < 200 && busyDuring === undefined; i++) await tick();
  terminal.endInput();
  assert.equal(await done, 0);
  // The line editor draws nothing over the compaction's spinner, and the prompt's line after it.
  assert.equal(busyDuring, true);
  assert.equal(busy.at(-1), false);
});
