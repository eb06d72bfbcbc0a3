/**
 * Screen-level: what interactive moat shows of a call while and after it runs, rendered by a
 * headless terminal emulator: an edit's diff under its line, a command's output live under the
 * spinner while it waits, then its preview.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { hasPython, spawnMoatAtPrompt } from "../support/pty.ts";

const noPython = !(await hasPython());

Deno.test({
  name: "terminal: an edit shows its diff with line numbers under the call line",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace({ "notes.txt": "milk\neggs\nbread\n" });
    server.script(
      reply.toolCalls([{
        id: "call_1",
        name: "edit",
        arguments: { path: "notes.txt", edits: [{ oldText: "eggs", newText: "butter" }] },
      }]),
      reply.text("Swapped the eggs for butter."),
    );
    await using term = await spawnMoatAtPrompt(["--allow-write=."], {
      cwd: ws.dir,
      baseURL: server.baseURL,
      cols: 80,
      rows: 24,
    });
    await term.write("swap the eggs\r");
    const screen = await term.waitForText("Swapped the eggs for butter.");
    const call = screen.findIndex((l) => /^✓ edit notes\.txt \(\d+ ms\)$/.test(l));
    assert.ok(call >= 0, screen.join("\n"));
    const diff = screen.slice(call + 1, screen.indexOf("Swapped the eggs for butter."));
    assert.ok(diff.some((l) => /^ +2 +-eggs$/.test(l)), diff.join("\n"));
    assert.ok(diff.some((l) => /^ +2 \+butter$/.test(l)), diff.join("\n"));
    assert.ok(diff.some((l) => /^ +1 +1 +milk$/.test(l)), diff.join("\n"));
    assert.equal(await Deno.readTextFile(join(ws.dir, "notes.txt")), "milk\nbutter\nbread\n");
  },
});

Deno.test({
  name: "terminal: a command's output shows live while it waits, then a preview and the prompt",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    const fifo = join(ws.dir, "go.fifo");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.ok(made.success, "mkfifo");
    server.script(
      reply.toolCalls([{
        id: "call_1",
        name: "bash",
        arguments: { command: "echo start; read -r _ < go.fifo; echo end" },
      }]),
      reply.text("The command finished."),
    );
    await using term = await spawnMoatAtPrompt([], {
      cwd: ws.dir,
      baseURL: server.baseURL,
      cols: 80,
      rows: 24,
    });
    await term.write("run it\r");
    // While the command waits on the fifo: its first line, under the running call.
    const running = await term.waitForScreen(
      "the live output",
      (s) => s.some((l) => l === "  start") && s.some((l) => /^\s+\d+ s · 1 line$/.test(l)),
    );
    const spinner = running.findIndex((l) =>
      /bash echo start; read -r _ < go\.fifo; echo end/.test(l)
    );
    assert.ok(spinner >= 0 && running[spinner + 1] === "  start", running.join("\n"));
    // The spinner names what runs and for how long.
    assert.match(running[spinner] ?? "", /^. bash echo start; read .* · \d+s$/);
    await Deno.writeTextFile(fifo, "go\n");
    const screen = await term.waitForScreen(
      "the preview, the answer and the prompt",
      (s) => s.includes("The command finished.") && s.filter((l) => l !== "").at(-1) === "›",
    );
    const call = screen.findIndex((l) => /^✓ bash echo start; read .*\(\d+(\.\d)? m?s\)$/.test(l));
    assert.ok(call >= 0, screen.join("\n"));
    assert.deepEqual(screen.slice(call + 1, call + 3), ["  start", "  end"]);
    // The live region is gone: no elapsed-time line is left on the screen.
    assert.ok(!screen.some((l) => /^\s+\d+ s( · \d+ lines?)?$/.test(l)), screen.join("\n"));
  },
});
