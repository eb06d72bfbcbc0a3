// deno-lint-ignore-file no-control-regex
/**
 * Screen-level: an interactive answer is rendered as markdown on a terminal (heading, bullets,
 * highlighted code, no markers), and the same answer is the model's text when stdout is a file.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { hasPython, spawnMoatAtPrompt, spawnPty } from "../support/pty.ts";
import { cliEnv, startArgv } from "./_cli.ts";

const noPython = !(await hasPython());

const ANSWER = "# Plan\n\nSome **bold** words.\n\n- first item\n- second item\n\n```ts\n" +
  "const answer = 42;\n```\n";

Deno.test({
  name: "terminal: an answer shows rendered (heading, bullets, code) and piped to a file is raw",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    server.script(reply.text(ANSWER), reply.text(ANSWER));
    await using term = await spawnMoatAtPrompt([], {
      cwd: ws.dir,
      baseURL: server.baseURL,
      color: true,
      cols: 80,
      rows: 30,
    });
    await term.write("make a plan\r");
    const screen = await term.waitForScreen(
      "the rendered answer and the prompt",
      (s) => s.includes("const answer = 42;") && s.includes("›"),
    );
    const at = screen.indexOf("Plan");
    assert.ok(at > 0, screen.join("\n"));
    assert.deepEqual(screen.slice(at, at + 5), [
      "Plan",
      "",
      "Some bold words.",
      "",
      "• first item",
    ]);
    assert.ok(screen.includes("• second item"), screen.join("\n"));
    assert.ok(!screen.some((l) => l.startsWith("# ") || l.includes("**")), screen.join("\n"));
    // The code is highlighted: `const` in its own colour.
    assert.match(term.raw, /\x1b\[35mconst\x1b\[39m answer/);
    await term.write("/exit\r");
    assert.equal(await term.exited(), 0);

    // The same answer with stdout a file (stdin and stderr on the terminal): the model's text.
    await using home = await createTempWorkspace();
    const out = join(home.dir, "stdout.txt");
    const moat = [Deno.execPath(), ...(await startArgv(["make a plan"]))];
    await using piped = spawnPty(
      ["sh", "-c", 'out="$1"; shift; exec "$@" >"$out"', "sh", out, ...moat],
      {
        cwd: ws.dir,
        env: { ...cliEnv(home.dir), OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" },
      },
    );
    assert.equal(await piped.exited(), 0);
    assert.equal(await Deno.readTextFile(out), ANSWER);
  },
});
