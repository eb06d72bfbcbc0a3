/**
 * Screen-level: moat in a real pseudo-terminal, its output rendered by a headless terminal
 * emulator (tests/support/pty.ts), asserting on the text a person sees.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { hasPython, spawnMoatAtPrompt, spawnMoatPty, spawnPty } from "../support/pty.ts";
import { denoDir, startArgv } from "./_cli.ts";

const noPython = !(await hasPython());
// Select Graphic Rendition: the sequences that colour or style text.
const SGR = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;]*m`);

Deno.test({
  name: "terminal: a typed request shows its tool call line, the answer, then the prompt again",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace({ "notes.txt": "remember the milk\n" });
    server.script(
      reply.toolCalls([{ id: "call_1", name: "read", arguments: { path: "notes.txt" } }]),
      reply.text("The notes say: remember the milk."),
    );
    await using term = await spawnMoatAtPrompt([], {
      cwd: ws.dir,
      baseURL: server.baseURL,
      color: true,
      cols: 80,
      rows: 20,
    });
    await term.write("what do my notes say?\r");
    const screen = await term.waitForScreen(
      "the answer and the prompt",
      (s) =>
        s.includes("The notes say: remember the milk.") && s.filter((l) => l === "›").length > 0,
    );
    const request = screen.findIndex((l) => l === "› what do my notes say?");
    const call = screen.findIndex((l) => /^✓ read notes\.txt \(\d+ ms\)$/.test(l));
    const answer = screen.indexOf("The notes say: remember the milk.");
    assert.ok(request >= 0 && request < call && call < answer, screen.join("\n"));
    assert.equal(screen.slice(answer + 1).filter((l) => l !== "").at(-1), "›");
    // With colour allowed on a TTY, the call line is coloured.
    assert.match(term.raw, SGR);
  },
});

Deno.test({
  name: "terminal: under NO_COLOR the same session shows the same lines without colour codes",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace({ "notes.txt": "remember the milk\n" });
    server.script(
      reply.toolCalls([{ id: "call_1", name: "read", arguments: { path: "notes.txt" } }]),
      reply.text("The notes say: remember the milk."),
    );
    await using term = await spawnMoatAtPrompt([], {
      cwd: ws.dir,
      baseURL: server.baseURL,
    });
    await term.write("what do my notes say?\r");
    const screen = await term.waitForText("The notes say: remember the milk.");
    assert.ok(screen.some((l) => /^✓ read notes\.txt \(\d+ ms\)$/.test(l)), screen.join("\n"));
    await term.write("/exit\r");
    assert.equal(await term.exited(), 0);
    assert.doesNotMatch(term.raw, SGR);
  },
});

Deno.test({
  name:
    "terminal: with stdout piped, stdout gets the plain answer while the terminal shows the call",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace({ "notes.txt": "remember the milk\n" });
    await using home = await createTempWorkspace();
    server.script(
      reply.toolCalls([{ id: "call_1", name: "read", arguments: { path: "notes.txt" } }]),
      reply.text("The notes say: **remember** the milk."),
    );
    const out = join(home.dir, "stdout.txt");
    const moat = [Deno.execPath(), ...(await startArgv(["what do my notes say?"]))];
    // stdin and stderr stay on the terminal; only stdout goes to a file.
    await using term = spawnPty([
      "sh",
      "-c",
      'out="$1"; shift; exec "$@" >"$out"',
      "sh",
      out,
      ...moat,
    ], {
      cwd: ws.dir,
      env: {
        HOME: home.dir,
        XDG_STATE_HOME: join(home.dir, "state"),
        XDG_CONFIG_HOME: join(home.dir, "config"),
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        DENO_DIR: denoDir(),
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: "k",
      },
    });
    assert.equal(await term.exited(), 0);
    const screen = await term.screen();
    assert.ok(screen.some((l) => /^✓ read notes\.txt \(\d+ ms\)$/.test(l)), screen.join("\n"));
    assert.equal(await Deno.readTextFile(out), "The notes say: **remember** the milk.\n");
  },
});

Deno.test({
  name: "terminal: a resize reaches the program in the pty as SIGWINCH with the new size",
  ignore: noPython,
  async fn() {
    await using ws = await createTempWorkspace();
    const program = [
      "import os, signal, sys",
      // os.write, not print: the signal may arrive while the first print is still in its
      // buffered writer (which raises "reentrant call" from the handler).
      "show = lambda *_: os.write(1, b'size %dx%d\\n' % tuple(os.get_terminal_size()))",
      "signal.signal(signal.SIGWINCH, show)",
      "show()",
      "sys.stdin.readline()",
    ].join("\n");
    await using term = spawnPty(["python3", "-c", program], {
      cwd: ws.dir,
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
      cols: 80,
      rows: 24,
    });
    await term.waitForText("size 80x24");
    await term.resize(60, 10);
    const screen = await term.waitForText("size 60x10");
    assert.equal(screen.length, 10);
    await term.write("\r");
    assert.equal(await term.exited(), 0);
  },
});

Deno.test({
  name: "terminal: moat's own messages arrive wrapped at words to a narrow window",
  ignore: noPython,
  async fn() {
    await using ws = await createTempWorkspace();
    // No endpoint configured: the longest message moat prints before any request.
    const env = { OPENAI_BASE_URL: null, OPENAI_API_KEY: null, NO_COLOR: "1" };
    await using term = await spawnMoatPty(["-p", "hello"], { cwd: ws.dir, env, cols: 50 });
    const code = await term.exited();
    assert.notEqual(code, 0);
    // What moat wrote, line by line: none wider than the window (the terminal did no wrapping).
    const csi = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;?]*[A-Za-z]`, "g");
    const written = term.raw.replace(csi, "").replace(/\r/g, "").split("\n").filter((l) =>
      l !== ""
    );
    assert.ok(written.length > 3, term.raw);
    for (const line of written) assert.ok([...line].length <= 50, `too wide: ${line}`);
    // The same words as when piped, in order: breaks only between words.
    await using home = await createTempWorkspace();
    const piped = await new Deno.Command(Deno.execPath(), {
      args: await startArgv(["-p", "hello"]),
      cwd: ws.dir,
      env: { HOME: home.dir, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DENO_DIR: denoDir() },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const words = (text: string) => text.split(/\s+/).filter((w) => w !== "");
    const pipedText = new TextDecoder().decode(piped.stderr);
    assert.ok(pipedText.split("\n").some((l) => l.length > 50), "a line longer than the window");
    assert.deepEqual(words(written.join("\n")), words(pipedText));
  },
});
