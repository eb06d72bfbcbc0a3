/**
 * Screen-level: an approval question in a real pseudo-terminal (tests/support/pty.ts) — the
 * diff of the write it asks about above it, one key answering it, wrapped to the window and
 * redrawn on a resize — and the prompt coming back after /compact and after Esc stops a turn.
 */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { hasPython, spawnMoatAtPrompt } from "../support/pty.ts";

const noPython = !(await hasPython());

Deno.test({
  name: "terminal: a write outside the grants shows its diff, then the question; n denies it",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using outside = await createTempWorkspace({ "old.txt": "one\ntwo\nthree\n" });
    await using ws = await createTempWorkspace();
    const target = outside.path("old.txt");
    server.script(
      reply.toolCalls([{
        id: "c1",
        name: "write",
        arguments: { path: target, content: "one\n2\nthree\n" },
      }]),
      reply.text("Left it alone."),
    );
    await using term = await spawnMoatAtPrompt([], { cwd: ws.dir, baseURL: server.baseURL });
    await term.write("change the file\r");
    const asked = await term.waitForText(/Allow\?/);
    const text = asked.join("\n");
    const removed = asked.findIndex((l) => /^ {2}2 {3}-two$/.test(l));
    const added = asked.findIndex((l) => /^ {4}2 \+2$/.test(l));
    const question = asked.findIndex((l) => l.startsWith("moat wants to write"));
    assert.ok(removed >= 0 && removed < added && added < question, text);
    // One key, no Enter: the choice is echoed and the call is denied.
    await term.write("n");
    const after = await term.waitForText("Left it alone.");
    assert.ok(after.some((l) => /→ no$/.test(l)), after.join("\n"));
    assert.equal(await Deno.readTextFile(target), "one\ntwo\nthree\n");
    const tool = server.chatRequests[1]?.body?.messages?.find((m) => m.role === "tool");
    assert.match(String(tool?.content), /declined by the user/);
    await term.write("/exit\r");
    assert.equal(await term.exited(), 0);
  },
});

/** The question's rows: from "moat wants" to the row ending "(Enter)". */
function questionRows(screen: string[]): string[] {
  const first = screen.findLastIndex((l) => l.startsWith("moat wants to write"));
  const last = screen.findIndex((l, i) => i >= first && /\(Enter\)( →.*)?$/.test(l));
  return first < 0 || last < 0 ? [] : screen.slice(first, last + 1);
}

const QUESTION = new RegExp(
  String.raw`^moat wants to write \S+/new\.txt \(write\)\. Allow\? \[y\]es once / ` +
    String.raw`\[a\]lways this run / \[d\]irectory \S+ this run / \[N\]o \(Enter\)$`,
);

Deno.test({
  name: "terminal: the question wraps at word boundaries to a narrow window and again on a resize",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using outside = await createTempWorkspace();
    await using ws = await createTempWorkspace();
    const target = outside.path("new.txt");
    server.script(
      reply.toolCalls([{ id: "c1", name: "write", arguments: { path: target, content: "hi\n" } }]),
      reply.text("Wrote it."),
    );
    await using term = await spawnMoatAtPrompt([], {
      cwd: ws.dir,
      baseURL: server.baseURL,
      cols: 50,
      rows: 30,
    });
    await term.write("write a file\r");
    const narrow = questionRows(await term.waitForText(/\(Enter\)$/m));
    // Broken only at spaces: joined again, it is the whole question; every row fits.
    assert.ok(narrow.length >= 3, narrow.join("\n"));
    assert.match(narrow.join(" "), QUESTION);
    for (const row of narrow) assert.ok(row.length <= 50, row);
    await term.resize(72, 30);
    const wide = await term.waitForScreen("the question redrawn", (s) => {
      const rows = questionRows(s);
      return rows.length > 0 && rows.length < narrow.length && QUESTION.test(rows.join(" "));
    });
    const rows = questionRows(wide);
    for (const row of rows) assert.ok(row.length <= 72, row);
    // Redrawn in place: the question is on the screen once.
    assert.equal(
      wide.filter((l) => l.startsWith("moat wants to write")).length,
      1,
      wide.join("\n"),
    );
    await term.write("y");
    await term.waitForText("Wrote it.");
    assert.equal(await Deno.readTextFile(target), "hi\n");
    await term.write("/exit\r");
    assert.equal(await term.exited(), 0);
  },
});

Deno.test({
  name: "terminal: after /compact the prompt comes back; Esc stops a running bash call",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    const fifo = ws.path("wait.fifo");
    const started = ws.path("started.flag");
    const mkfifo = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.ok(mkfifo.success, "mkfifo");
    server.script(
      reply.text("The number is seven. ".repeat(200)),
      reply.text("## Done\nThe number 7."),
      reply.toolCalls([{
        id: "c1",
        name: "bash",
        arguments: { command: "touch started.flag; cat wait.fifo" },
      }]),
      reply.text("never asked"),
    );
    await using term = await spawnMoatAtPrompt(["--allow-run=bash,touch,cat"], {
      cwd: ws.dir,
      baseURL: server.baseURL,
    });
    await term.write("remember the number 7\r");
    await term.waitForScreen(
      "the answer and the prompt",
      (s) => atPrompt(s) && /seven/.test(s.join("")),
    );
    await term.write("/compact\r");
    const compacted = await term.waitForScreen(
      "the compaction and the prompt",
      (s) => s.some((l) => /compacted/.test(l)) && atPrompt(s),
    );
    const said = compacted.find((l) => /compacted/.test(l));
    assert.match(said ?? "", /^moat: compacted [\d,]+ → [\d,]+ tokens \(manual\)/);
    await term.write("/model\r");
    await term.waitForText("Model: gpt-4.1");

    await term.write("wait for the fifo\r");
    // The command is running (it made its flag) and blocks on the fifo the test never writes.
    await waitForFile(started);
    await term.write("\x1b");
    const back = await term.waitForScreen(
      "the aborted turn and the prompt",
      (s) => s.some((l) => l.includes("(aborted — ask again or /exit)")) && atPrompt(s),
    );
    assert.ok(!back.some((l) => l.includes("never asked")), back.join("\n"));
    await term.write("/grants\r");
    await term.waitForText(/^Grants: /m);
    await term.write("/exit\r");
    assert.equal(await term.exited(), 0);
  },
});

/** The last line with text is the bare prompt. */
function atPrompt(screen: string[]): boolean {
  return screen.filter((l) => l !== "").at(-1) === "›";
}

/** Resolves once `path` exists (a failure guard of 30 s; checked every 20 ms). */
async function waitForFile(path: string): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    try {
      await Deno.lstat(path);
      return;
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`"${path}" never appeared`);
}
