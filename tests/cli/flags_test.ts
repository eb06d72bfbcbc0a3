import assert from "node:assert/strict";
import { parseCliArgs } from "../../src/cli/args.ts";
import { bareGrantValueError, shellWord } from "../../src/cli/args_values.ts";
import { runCli } from "../../src/cli/main.ts";
import { parseCommand } from "../../src/cli/sessions.ts";
import { createDenoScanOps } from "../../src/sys/paths.ts";
import { emptyUsage } from "../../src/model/types.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { createFakeCliDeps, createFakeTerminal } from "./_fakes.ts";

/** runCli in `ws` with a key set and a model that must never be asked. */
async function refused(ws: TempWorkspace, argv: string[], env: Record<string, string> = {}) {
  const terminal = createFakeTerminal();
  const { deps, calls } = createFakeCliDeps({});
  const code = await runCli(argv, {
    env: { HOME: ws.dir, OPENAI_API_KEY: "k", PATH: "/usr/bin:/bin", ...env },
    cwd: ws.dir,
    terminal,
    deps,
  });
  return { code, stderr: terminal.stderr, calls };
}

Deno.test("runCli() refuses a bare grant flag followed by a path, with the exact spelling, before any request", async () => {
  await using ws = await createTempWorkspace({ "src/a.ts": "x\n" });
  const result = await refused(ws, ["--allow-write", "src", "make the tests pass"]);
  assert.equal(result.code, 2);
  assert.equal(result.calls.models + result.calls.sandboxes.length, 0);
  assert.match(result.stderr, /moat --allow-write=src "make the tests pass"/);
  assert.match(result.stderr, /moat --allow-write -- src "make the tests pass"/);
});

Deno.test("bareGrantValueError() knows a value of each kind of list flag and keeps multi-word prompts", async () => {
  await using ws = await createTempWorkspace({ "src/a.ts": "x\n", "sub/lib/b.ts": "y\n" });
  const probe = { paths: createDenoScanOps(), cwd: ws.dir, path: "/usr/bin:/bin", home: ws.dir };
  const refusedFor = (args: string[]) => bareGrantValueError(args, probe);
  // Paths: existing in the workspace (also under a later --cwd), or shaped like a path.
  for (
    const args of [
      ["--allow-read", "src", "task"],
      ["--deny-read", ".env", "task"],
      ["--deny-write", "gen/out", "task"],
      ["--allow-write", "~/notes", "task"],
      ["--allow-write", "lib", "task", "--cwd", "sub"],
      ["--allow-write", "src,tests", "task"],
      ["--allow-run", "git", "fix it"],
      ["--allow-run", "./scripts/x.sh", "fix it"],
      ["--deny-run", "curl,wget", "fix it"],
      ["--allow-net", "example.com", "fetch it"],
      ["--allow-net", "localhost:8080", "fetch it"],
      ["--deny-net", "10.0.0.1", "fetch it"],
      ["--allow-env", "GITHUB_TOKEN", "use it"],
      ["--allow-mcp", "github__search", "find it"],
      ["--allow-mcp", "github,files", "find it"],
    ]
  ) {
    const error = refusedFor(args);
    assert.ok(error !== undefined, `${args.join(" ")} must be refused`);
    assert.ok(error.includes(`${args[0]}=${args[1]}`), error);
  }
  for (
    const args of [
      ["--allow-write", "make the tests pass"],
      ["--allow-write", "refactor"],
      ["--allow-read", "--allow-write=src", "task"],
      ["--allow-run", "fix it"],
      ["--allow-run", "definitely-no-such-program-here"],
      ["--allow-net", "fetch the page"],
      ["--allow-env", "use the token"],
      ["--allow-mcp", "summarise"],
      ["--allow-write", "--", "src", "task"],
      ["--allow-write=src", "src", "task"],
    ]
  ) {
    assert.equal(refusedFor(args), undefined, args.join(" "));
  }
  // A program on PATH is also a plausible one-word prompt: both spellings are offered.
  const error = refusedFor(["--allow-run", "git"]);
  assert.match(
    error ?? "",
    /moat --allow-run=git; to send "git" as the prompt, write moat --allow-run -- git/,
  );
});

Deno.test("shellWord() quotes what a shell would split or expand", () => {
  assert.equal(shellWord("src"), "src");
  assert.equal(shellWord("fix it"), `"fix it"`);
  assert.equal(shellWord("it's $HOME"), `'it'\\''s $HOME'`);
});

Deno.test("parseCommand() takes a subcommand after flags as a usage error that shows both spellings", () => {
  for (
    const [argv, fixed, prompt] of [
      [
        ["--cwd", "DIR", "mcp", "list"],
        `moat mcp list --cwd DIR`,
        `moat --cwd DIR -- mcp list`,
      ],
      [["--cwd", "DIR", "sessions"], `moat sessions --cwd DIR`, `moat --cwd DIR -- sessions`],
      [["-p", "sessions"], `moat sessions -p`, `moat -p -- sessions`],
      [
        ["--", "--verbose", "mcp", "list", "now"],
        `moat mcp list --verbose now`,
        `moat --verbose -- mcp list now`,
      ],
    ] as const
  ) {
    const parsed = parseCommand([...argv]);
    assert.ok(!parsed.ok, argv.join(" "));
    assert.match(parsed.error, /subcommands come first/);
    assert.ok(parsed.error.includes(fixed), parsed.error);
    assert.ok(parsed.error.includes(prompt), parsed.error);
  }
  // After "--" the words are a prompt; a subcommand given first still works.
  const prompt = parseCommand(["--cwd", "DIR", "--", "mcp", "list"]);
  assert.ok(prompt.ok && prompt.command === "run" && prompt.flags.prompt === "mcp list");
  const mcp = parseCommand(["mcp", "list", "--cwd", "DIR"]);
  assert.ok(mcp.ok && mcp.command === "mcp" && mcp.flags.cwd === "DIR");
  const words = parseCliArgs(["--verbose", "fix", "sessions"]);
  assert.ok(words.ok && words.command === "run" && words.flags.prompt === "fix sessions");
});

Deno.test("runCli() --include-deltas without --output jsonl is a usage error, also interactively", async () => {
  await using ws = await createTempWorkspace();
  const print = await refused(ws, ["--include-deltas", "hi"]);
  assert.equal(print.code, 2);
  assert.match(print.stderr, /'--include-deltas' only applies to '--output jsonl'/);
  assert.equal(print.calls.models, 0);
  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: true, stderr: true } });
  const { deps, calls } = createFakeCliDeps({});
  const code = await runCli(["--include-deltas"], {
    env: { HOME: ws.dir, OPENAI_API_KEY: "k" },
    cwd: ws.dir,
    terminal,
    deps,
  });
  assert.equal(code, 2, terminal.stderr);
  assert.match(terminal.stderr, /only applies to '--output jsonl' in print mode/);
  assert.equal(calls.models, 0);
});

Deno.test("parseCliArgs() reads --deny-net lists", () => {
  const parsed = parseCliArgs(["--deny-net=example.com,10.0.0.1:80", "--allow-net", "go"]);
  assert.ok(parsed.ok && parsed.command === "run");
  assert.deepEqual(parsed.flags.permissions["deny-net"], ["example.com,10.0.0.1:80"]);
  assert.equal(parsed.flags.permissions["allow-net"], true);
});

Deno.test("runCli() does not contact an HTTP MCP server whose host is in --deny-net, and says so", async () => {
  await using ws = await createTempWorkspace({
    "mcp.json": JSON.stringify({ mcpServers: { web: { url: "http://127.0.0.1:9/mcp" } } }),
  });
  const terminal = createFakeTerminal();
  const { deps } = createFakeCliDeps({
    model: {
      stream: () =>
        Promise.resolve({
          role: "assistant",
          blocks: [{ type: "text", text: "ok" }],
          stopReason: "stop",
          usage: emptyUsage(),
        }),
    },
  });
  const code = await runCli(
    ["--no-session", "--mcp-config", "mcp.json", "--deny-net=127.0.0.1", "hi"],
    { env: { HOME: ws.dir, OPENAI_API_KEY: "k" }, cwd: ws.dir, terminal, deps },
  );
  assert.equal(code, 0, terminal.stderr);
  assert.match(terminal.stderr, /MCP server "web" .* was not contacted: its host is in --deny-net/);
});
