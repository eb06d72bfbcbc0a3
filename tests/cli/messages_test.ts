import assert from "node:assert/strict";
import { runCli } from "../../src/cli/main.ts";
import { noEndpointMessage } from "../../src/cli/setup.ts";
import { wrapMessage } from "../../src/cli/io.ts";
import { displayWidth } from "../../src/term/wrap.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { createFakeCliDeps, createFakeTerminal } from "./_fakes.ts";

const words = (text: string) => text.split(/\s+/).filter((w) => w !== "");

function runWithoutEndpoint(dir: string, tty: boolean, columns?: number) {
  const terminal = createFakeTerminal({
    tty: { stdin: tty, stdout: tty, stderr: tty },
    ...(columns === undefined ? {} : { columns }),
  });
  const { deps } = createFakeCliDeps();
  return { terminal, code: runCli(["hi"], { env: { HOME: dir }, cwd: dir, terminal, deps }) };
}

Deno.test("the no-endpoint error on an 80-column terminal wraps at words to 80 columns", async () => {
  await using ws = await createTempWorkspace();
  const { terminal, code } = runWithoutEndpoint(ws.dir, true, 80);
  assert.equal(await code, 2);
  const message = noEndpointMessage("OPENAI_API_KEY");
  const lines = terminal.stderr.split("\n");
  for (const line of lines) assert.ok(displayWidth(line) <= 80, `wider than 80: ${line}`);
  assert.ok(lines.length > message.split("\n").length, "some line was wrapped");
  assert.deepEqual(words(terminal.stderr), words(message));
  // A wrapped line goes on under its own indent, and the URL in it stays whole.
  assert.ok(
    lines.includes(
      "  Example: OPENAI_BASE_URL=http://localhost:11434/v1 moat --model qwen2.5-coder",
    ),
  );
  assert.ok(lines.includes('  "explain this"'));
  assert.ok(terminal.stderr.endsWith("\n"));
});

Deno.test("the no-endpoint error on a narrow terminal fits and keeps its text", async () => {
  await using ws = await createTempWorkspace();
  const { terminal, code } = runWithoutEndpoint(ws.dir, true, 40);
  assert.equal(await code, 2);
  for (const line of terminal.stderr.split("\n")) assert.ok(displayWidth(line) <= 40, line);
  // A word wider than the terminal (a long URL) is cut: the same text, broken differently.
  const squeezed = (text: string) => text.replace(/\s+/g, "");
  assert.equal(squeezed(terminal.stderr), squeezed(noEndpointMessage("OPENAI_API_KEY")));
});

Deno.test("the no-endpoint error piped is written unchanged, byte for byte", async () => {
  await using ws = await createTempWorkspace();
  const { terminal, code } = runWithoutEndpoint(ws.dir, false, 40);
  assert.equal(await code, 2);
  assert.equal(terminal.stderr, noEndpointMessage("OPENAI_API_KEY"));
});

Deno.test("a usage error on a terminal wraps, with the pointer to --help on its own line", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal({ tty: { stderr: true }, columns: 30 });
  const { deps } = createFakeCliDeps();
  const code = await runCli(["--cwd", `${ws.dir}/no/such/directory/here`, "hi"], {
    env: { HOME: ws.dir },
    cwd: ws.dir,
    terminal,
    deps,
  });
  assert.equal(code, 2);
  const lines = terminal.stderr.trimEnd().split("\n");
  for (const line of lines) assert.ok(displayWidth(line) <= 30, line);
  assert.ok(lines.length > 3, terminal.stderr);
  assert.equal(lines.at(-1), "Run 'moat --help' for usage.");
});

Deno.test("wrapMessage() keeps the space a question ends with, for the answer typed after it", () => {
  assert.equal(
    wrapMessage("Apply the project's settings? [r]emember, [o]nce, [i]gnore: ", 24),
    "Apply the project's\nsettings? [r]emember,\n[o]nce, [i]gnore: ",
  );
  assert.equal(wrapMessage("short\n", 80), "short\n");
});
