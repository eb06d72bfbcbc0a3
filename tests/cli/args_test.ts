import assert from "node:assert/strict";
import { CLI_OPTIONS, helpText, parseCliArgs } from "../../src/cli/args.ts";

function flagsOf(argv: string[]) {
  const parsed = parseCliArgs(argv);
  assert.ok(parsed.ok && parsed.command === "run", JSON.stringify(parsed));
  return parsed.flags;
}

Deno.test("parseCliArgs() drops the leading -- that deno task passes", () => {
  assert.deepEqual(parseCliArgs(["--", "--version"]), { ok: true, command: "version" });
  assert.deepEqual(parseCliArgs(["--", "-h"]), { ok: true, command: "help" });
});

Deno.test("parseCliArgs() reports unknown and malformed flags as errors, never throws", () => {
  for (
    const argv of [
      ["--bogus"],
      ["--model"],
      ["--max-turns", "0"],
      ["--max-turns", "1.5"],
      ["--bash-timeout", "soon"],
      ["--output", "yaml"],
      ["--sandbox", "maybe"],
      ["--tools", ","],
      ["--continue", "--session", "x.jsonl"],
      ["--no-session", "-c"],
      ["--output", "text", "--include-deltas"],
      ["--model", ""],
    ]
  ) {
    const parsed = parseCliArgs(argv);
    assert.equal(parsed.ok, false, `${argv.join(" ")} should be rejected`);
    if (!parsed.ok) assert.ok(parsed.error.length > 10);
  }
});

Deno.test("parseCliArgs() parses every value flag of the CLI", () => {
  const flags = flagsOf([
    "-p",
    "--model=m1",
    "--base-url",
    "http://localhost:1/v1",
    "--api-key-env",
    "MY_KEY",
    "--max-turns",
    "7",
    "--tools",
    "read, bash",
    "--cwd",
    "sub",
    "-o",
    "jsonl",
    "--include-deltas",
    "--system-prompt",
    "S",
    "--append-system-prompt",
    "A",
    "--bash-timeout",
    "2.5",
    "--sandbox=off",
    "--no-prompt",
    "--fail-on-deny",
    "--verbose",
    "--no-context-files",
    "--session",
    "s.jsonl",
    "do",
    "it",
  ]);
  assert.equal(flags.print, true);
  assert.equal(flags.model, "m1");
  assert.equal(flags.baseUrl, "http://localhost:1/v1");
  assert.equal(flags.apiKeyEnv, "MY_KEY");
  assert.equal(flags.maxTurns, 7);
  assert.deepEqual(flags.tools, ["read", "bash"]);
  assert.equal(flags.cwd, "sub");
  assert.equal(flags.output, "jsonl");
  assert.equal(flags.includeDeltas, true);
  assert.equal(flags.systemPrompt, "S");
  assert.equal(flags.appendSystemPrompt, "A");
  assert.equal(flags.bashTimeout, 2.5);
  assert.equal(flags.sandbox, "off");
  assert.equal(flags.noPrompt, true);
  assert.equal(flags.failOnDeny, true);
  assert.equal(flags.verbose, true);
  assert.equal(flags.noContextFiles, true);
  assert.equal(flags.session, "s.jsonl");
  assert.equal(flags.prompt, "do it");
});

Deno.test("parseCliArgs() keeps a bare permission flag from swallowing the prompt", () => {
  const flags = flagsOf(["--allow-read", "summarise", "the repo", "--allow-net"]);
  assert.equal(flags.prompt, "summarise the repo");
  assert.deepEqual(flags.permissions, { "allow-read": true, "allow-net": true });
});

Deno.test("parseCliArgs() collects repeated permission lists and -A", () => {
  const flags = flagsOf([
    "--allow-write=src,tests",
    "--allow-write=docs",
    "--deny-read=.env",
    "--allow-run=git",
    "-A",
    "go",
  ]);
  assert.deepEqual(flags.permissions, {
    "allow-write": ["src,tests", "docs"],
    "deny-read": [".env"],
    "allow-run": ["git"],
    "allow-all": true,
  });
});

Deno.test("parseCliArgs() treats everything after a later -- as the prompt", () => {
  const flags = flagsOf(["--", "--model", "m", "--", "--allow-read", "-x"]);
  assert.equal(flags.model, "m");
  assert.equal(flags.prompt, "--allow-read -x");
  assert.deepEqual(flags.permissions, {});
});

Deno.test("helpText() lists every flag with examples", () => {
  const text = helpText("9.9.9");
  for (
    const flag of [
      "--model",
      "--base-url",
      "--api-key-env",
      "--max-turns",
      "--tools",
      "--cwd",
      "--output",
      "--session",
      "--continue",
      "--no-session",
      "--system-prompt",
      "--append-system-prompt",
      "--bash-timeout",
      "--allow-read",
      "--deny-read",
      "--allow-write",
      "--deny-write",
      "--allow-run",
      "--deny-run",
      "--allow-net",
      "--allow-env",
      "--allow-all",
      "--sandbox",
      "--no-prompt",
      "--fail-on-deny",
      "--verbose",
      "--version",
      "--help",
      "--no-context-files",
      "--include-deltas",
      "--print",
      "--resume",
      "--quiet",
      "moat sessions",
    ]
  ) assert.ok(text.includes(flag), `help mentions ${flag}`);
  assert.match(text, /Examples:/);
  assert.match(text, /9\.9\.9/);
});

Deno.test("helpText() documents every option parseCliArgs accepts, with its short form", () => {
  const text = helpText("1.0.0");
  for (const [name, option] of Object.entries(CLI_OPTIONS)) {
    assert.match(text, new RegExp(`--${name}\\b`), `help mentions --${name}`);
    const short = (option as { short?: string }).short;
    if (short !== undefined) {
      assert.match(text, new RegExp(`-${short}, --${name}\\b`), `help shows -${short}`);
    }
  }
});

Deno.test("parseCliArgs() parses --replay FILE and --replay-check into flags", () => {
  const flags = flagsOf(["--replay", "examples/tour.jsonl", "--replay-check", "my prompt"]);
  assert.equal(flags.replay, "examples/tour.jsonl");
  assert.equal(flags.replayCheck, true);
  assert.equal(flags.prompt, "my prompt");
  const plain = flagsOf(["--replay=t.jsonl"]);
  assert.equal(plain.replay, "t.jsonl");
  assert.equal(plain.replayCheck, false);
  assert.equal(flagsOf(["hi"]).replay, undefined);
});

Deno.test("parseCliArgs() rejects --replay-check without --replay, --replay with -c, and an empty --replay", () => {
  const errorOf = (argv: string[]) => {
    const parsed = parseCliArgs(argv);
    assert.ok(!parsed.ok, `expected a usage error for ${JSON.stringify(argv)}`);
    return parsed.error;
  };
  assert.match(errorOf(["--replay-check", "hi"]), /'--replay-check' needs '--replay FILE'/);
  assert.match(
    errorOf(["--replay", "t.jsonl", "-c"]),
    /'--replay' and '--continue' cannot be combined/,
  );
  assert.match(
    errorOf(["--continue", "--replay", "t.jsonl"]),
    /'--replay' and '--continue' cannot be combined/,
  );
  assert.match(errorOf(["--replay", ""]), /Option '--replay' must not be empty/);
  assert.match(errorOf(["--replay", "  "]), /Option '--replay' must not be empty/);
  // A missing value is parseArgs' own error.
  errorOf(["--replay"]);
});

Deno.test("parseCliArgs() names an unknown option in quotes with the closest known one", () => {
  const errorOf = (argv: string[]) => {
    const parsed = parseCliArgs(argv);
    assert.ok(!parsed.ok, `expected a usage error for ${JSON.stringify(argv)}`);
    return parsed.error;
  };
  assert.equal(errorOf(["--verbos", "hi"]), `Unknown option "--verbos": did you mean "--verbose"?`);
  assert.equal(errorOf(["--modle=x", "hi"]), `Unknown option "--modle": did you mean "--model"?`);
  assert.equal(
    errorOf(["--allow-red=.", "hi"]),
    `Unknown option "--allow-red": did you mean "--allow-read"?`,
  );
  // Nothing close: no guess, but how to send a prompt that starts with "-".
  const far = errorOf(["--frobnicate", "x"]);
  assert.match(far, /^Unknown option "--frobnicate": to send a prompt that starts with "-"/);
  assert.doesNotMatch(far, /did you mean/);
  assert.match(errorOf(["-pz", "x"]), /^Unknown option "-z": /);
  // Every quote is closed (parseArgs' own text left one open).
  for (const error of [far, errorOf(["-z"])]) {
    assert.equal((error.match(/"/g) ?? []).length % 2, 0, error);
  }
});

Deno.test("parseCliArgs() takes --resume with a value, or bare before a flag or at the end", () => {
  assert.equal(flagsOf(["--resume", "2025-01-02", "go on"]).resume, "2025-01-02");
  assert.equal(flagsOf(["--resume=s.jsonl"]).resume, "s.jsonl");
  assert.equal(flagsOf(["--resume"]).resume, true);
  const before = flagsOf(["--resume", "--verbose"]);
  assert.equal(before.resume, true);
  assert.equal(before.verbose, true);
  assert.equal(flagsOf(["hi"]).resume, undefined);
  // After "--" it is the prompt.
  assert.equal(flagsOf(["-p", "--", "--resume"]).prompt, "--resume");
});

Deno.test("parseCliArgs() rejects --resume with another session choice, and --quiet with --verbose", () => {
  for (
    const [argv, pattern] of [
      [["--resume", "x", "-c"], /'--resume' and '--continue' cannot be combined/],
      [["--resume", "x", "--session", "s.jsonl"], /'--resume' and '--session'/],
      [["--resume", "--no-session"], /'--resume' and '--no-session'/],
      [["--resume=x", "--replay", "t.jsonl"], /'--resume' and '--replay'/],
      [["--resume", ""], /Option '--resume' must not be empty/],
      [["-q", "--verbose"], /'--quiet' and '--verbose' cannot be combined/],
    ] as const
  ) {
    const parsed = parseCliArgs([...argv]);
    assert.ok(!parsed.ok, `expected a usage error for ${JSON.stringify(argv)}`);
    assert.match(parsed.error, pattern);
  }
  assert.equal(flagsOf(["-q"]).quiet, true);
  assert.equal(flagsOf(["hi"]).quiet, false);
});

Deno.test("parseCliArgs() reads -P, -P=NAME and --permission-set=NAME; -P NAME leaves NAME as the prompt", () => {
  const set = (argv: string[]) => {
    const parsed = parseCliArgs(argv);
    assert.ok(parsed.ok && parsed.command === "run");
    return [parsed.flags.permissionSet, parsed.flags.prompt];
  };
  assert.deepEqual(set(["-P", "hi"]), ["", "hi"]);
  assert.deepEqual(set(["-P=ci", "hi"]), ["ci", "hi"]);
  assert.deepEqual(set(["--permission-set=ci"]), ["ci", undefined]);
  assert.deepEqual(set(["--permission-set"]), ["", undefined]);
  assert.deepEqual(set(["hi", "--", "-P=ci"]), [undefined, "hi -P=ci"]);
});
