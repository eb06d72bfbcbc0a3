/**
 * The composite GitHub Action (action.yml): scripts/action/install.sh installs a fake "release"
 * served from file:// (a shim named like the Linux binary that runs the real moat through deno, or
 * one that only logs its arguments and prints a canned result), and scripts/action/run.sh runs it
 * with the environment GitHub would give, against the fake OpenAI server.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fault, reply, startFakeOpenAI } from "./support/fake_openai.ts";
import { createTempWorkspace, type TempWorkspace } from "./support/workspace.ts";
import { cliEnv, PROJECT_ROOT, startArgv } from "./e2e/_cli.ts";
import { sha256Sums } from "../scripts/compile.ts";

const INSTALL = join(PROJECT_ROOT, "scripts/action/install.sh");
const RUN = join(PROJECT_ROOT, "scripts/action/run.sh");
const LINUX_X64 = "moat-x86_64-unknown-linux-gnu";
const API_KEY = "sk-action-test-secret-3f9a1c";

/** Single-quotes a word for bash. */
function sh(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A shim that records its arguments (NUL-separated) and runs the real moat through deno. */
async function realMoatShim(argsLog: string, envLog: string): Promise<string> {
  const argv = [Deno.execPath(), ...await startArgv([])].map(sh).join(" ");
  return `#!/usr/bin/env bash
printf '%s\\0' "$@" > ${sh(argsLog)}
printf '%s' "\${MOAT_ACTION_API_KEY-unset}" > ${sh(envLog)}
exec ${argv} "$@"
`;
}

/** A shim that records its arguments, prints `result` as moat's JSON line and exits `code`. */
function cannedShim(argsLog: string, result: unknown, code: number): string {
  return `#!/usr/bin/env bash
printf '%s\\0' "$@" > ${sh(argsLog)}
printf '%s\\n' ${sh(JSON.stringify(result))}
exit ${code}
`;
}

/** Writes a release directory: the Linux x86_64 binary (the shim) and its SHA256SUMS. */
async function writeRelease(dir: string, shim: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const binary = join(dir, LINUX_X64);
  await Deno.writeTextFile(binary, shim);
  await Deno.writeTextFile(join(dir, "SHA256SUMS"), await sha256Sums([binary]));
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function bash(script: string, env: Record<string, string>, cwd: string): Promise<Ran> {
  const out = await new Deno.Command("bash", {
    args: [script],
    env,
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** The environment of the install step for a release served from `releaseDir`. */
function installEnv(t: TempWorkspace, releaseDir: string, extra: Record<string, string> = {}) {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: t.dir,
    RUNNER_OS: "Linux",
    RUNNER_ARCH: "X64",
    RUNNER_TEMP: t.path("runner-temp"),
    GITHUB_PATH: t.path("github-path"),
    GITHUB_OUTPUT: t.path("install-output"),
    MOAT_ACTION_DOWNLOAD_URL: `file://${releaseDir}`,
    MOAT_ACTION_INSTALL_DIR: t.path("bin"),
    ...extra,
  };
}

/** Parses a $GITHUB_OUTPUT file (`name=value` and `name<<DELIM … DELIM` entries). */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const heredoc = /^([\w-]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2] as string, i + 1);
      assert.ok(end > i, `unterminated output ${heredoc[1]}`);
      out[heredoc[1] as string] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) {
      out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return out;
}

/** Installs `shim` as the release binary; returns the installed path. */
async function install(t: TempWorkspace, shim: string): Promise<string> {
  const releaseDir = t.path("release");
  await writeRelease(releaseDir, shim);
  await Deno.mkdir(t.path("runner-temp"), { recursive: true });
  const ran = await bash(INSTALL, installEnv(t, releaseDir), t.dir);
  assert.equal(ran.code, 0, ran.stderr);
  return t.path("bin/moat");
}

/** The files a run.sh run writes, and its environment. */
function runEnv(t: TempWorkspace, home: string, inputs: Record<string, string>) {
  return cliEnv(home, {
    RUNNER_TEMP: t.path("runner-temp"),
    GITHUB_OUTPUT: t.path("github-output"),
    GITHUB_STEP_SUMMARY: t.path("step-summary"),
    ...inputs,
  });
}

/** Runs run.sh in `cwd` (default: `t`) with `inputs` as the step's environment. */
function runStep(
  t: TempWorkspace,
  home: TempWorkspace,
  inputs: Record<string, string>,
  cwd = t.dir,
): Promise<Ran> {
  return bash(RUN, runEnv(t, home.dir, inputs), cwd);
}

/** The flags run.sh always passes first. */
const FIXED_ARGS = ["--print", "--no-prompt", "--output", "json", "--no-session"];

async function readArgs(path: string): Promise<string[]> {
  return (await Deno.readTextFile(path)).split("\0").slice(0, -1);
}

Deno.test("install.sh installs the release binary after checking SHA256SUMS, and refuses a bad checksum", async () => {
  await using t = await createTempWorkspace();
  await Deno.mkdir(t.path("runner-temp"));
  const releaseDir = t.path("release");
  await writeRelease(releaseDir, "#!/usr/bin/env bash\necho fake moat\n");

  const ok = await bash(INSTALL, installEnv(t, releaseDir), t.dir);
  assert.equal(ok.code, 0, ok.stderr);
  const installed = t.path("bin/moat");
  assert.equal(
    await Deno.readTextFile(installed),
    await Deno.readTextFile(join(releaseDir, LINUX_X64)),
  );
  assert.ok(((await Deno.stat(installed)).mode ?? 0) & 0o100, "executable");
  assert.equal(await Deno.readTextFile(t.path("github-path")), `${t.path("bin")}\n`);
  assert.equal(parseOutputs(await Deno.readTextFile(t.path("install-output"))).path, installed);

  // A changed binary no longer matches its line: nothing is installed.
  await Deno.writeTextFile(join(releaseDir, LINUX_X64), "#!/usr/bin/env bash\necho evil\n");
  const bad = await bash(
    INSTALL,
    installEnv(t, releaseDir, { MOAT_ACTION_INSTALL_DIR: t.path("bin2") }),
    t.dir,
  );
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /checksum mismatch for moat-x86_64-unknown-linux-gnu/);
  await assert.rejects(Deno.stat(t.path("bin2/moat")), Deno.errors.NotFound);

  // The file for each OS and CPU; a SHA256SUMS without its line fails naming it.
  for (
    const [os, arch, file] of [
      ["Linux", "ARM64", "moat-aarch64-unknown-linux-gnu"],
      ["macOS", "X64", "moat-x86_64-apple-darwin"],
      ["macOS", "ARM64", "moat-aarch64-apple-darwin"],
      ["Windows", "X64", "moat-x86_64-pc-windows-msvc.exe"],
    ]
  ) {
    const ran = await bash(
      INSTALL,
      installEnv(t, releaseDir, { RUNNER_OS: os as string, RUNNER_ARCH: arch as string }),
      t.dir,
    );
    assert.notEqual(ran.code, 0);
    assert.ok(ran.stderr.includes(`SHA256SUMS at file://${releaseDir} has no line for ${file}`));
  }
  const windowsArm = await bash(
    INSTALL,
    installEnv(t, releaseDir, { RUNNER_OS: "Windows", RUNNER_ARCH: "ARM64" }),
    t.dir,
  );
  assert.notEqual(windowsArm.code, 0);
  assert.match(windowsArm.stderr, /no moat release for Windows\/ARM64/);
});

Deno.test("run.sh runs moat with least privilege and writes outputs and a summary; the key stays in the environment", async () => {
  await using server = await startFakeOpenAI();
  await using t = await createTempWorkspace();
  await using home = await createTempWorkspace();
  await using ws = await createTempWorkspace({ "README.md": "# Demo\n" });
  const moat = await install(t, await realMoatShim(t.path("args"), t.path("env")));
  server.script(
    reply.toolCalls([{
      id: "call_1",
      name: "write",
      arguments: { path: "out.txt", content: "x" },
    }]),
    reply.text("The answer is 42.\nSecond line."),
  );
  // Shell syntax in the prompt must arrive as text, never run.
  const prompt = `summarise $(touch pwned) \`touch pwned2\` "quoted" 'single' -- --allow-all`;
  const ran = await runStep(t, home, {
    MOAT_ACTION_BIN: moat,
    MOAT_ACTION_PROMPT: prompt,
    MOAT_ACTION_API_KEY: API_KEY,
    MOAT_ACTION_MODEL: "fake-model",
    MOAT_ACTION_BASE_URL: server.baseURL,
    MOAT_ACTION_WORKING_DIRECTORY: ws.dir,
  });
  assert.equal(ran.code, 0, ran.stderr);

  assert.deepEqual(await readArgs(t.path("args")), [
    ...FIXED_ARGS,
    "--model=fake-model",
    `--base-url=${server.baseURL}`,
    "--allow-read=.",
    "--deny-write=.",
    "--",
    prompt,
  ]);
  assert.equal(
    await Deno.readTextFile(t.path("env")),
    "unset",
    "only OPENAI_API_KEY holds the key",
  );
  const request = server.chatRequests[0];
  assert.equal(request?.headers["authorization"], `Bearer ${API_KEY}`);
  assert.equal(request?.body?.messages.find((m) => m.role === "user")?.content, prompt);
  for (const name of ["pwned", "pwned2"]) {
    for (const dir of [ws.dir, t.dir]) {
      await assert.rejects(Deno.stat(join(dir, name)), Deno.errors.NotFound);
    }
  }
  // Write nothing by default: the model's write was denied.
  await assert.rejects(Deno.stat(ws.path("out.txt")), Deno.errors.NotFound);

  const outputs = parseOutputs(await Deno.readTextFile(t.path("github-output")));
  assert.equal(outputs.answer, "The answer is 42.\nSecond line.");
  assert.equal(outputs["exit-code"], "0");
  assert.equal(outputs["stop-reason"], "completed");
  assert.equal(typeof JSON.parse(outputs.usage ?? "").inputTokens, "number");
  assert.equal(outputs.structured, "");
  const result = JSON.parse(await Deno.readTextFile(outputs["result-file"] ?? ""));
  assert.equal(result.type, "result");
  assert.equal(result.denied, 1);
  const summary = await Deno.readTextFile(t.path("step-summary"));
  assert.ok(summary.includes("The answer is 42.\nSecond line."), summary);
  assert.match(summary, /\| exit code \| 0 \|/);
  assert.match(summary, /\| tokens in \/ out \/ cached \| \d+ \/ \d+ \/ \d+ \|/);

  for (const file of [t.path("github-output"), t.path("step-summary"), t.path("args")]) {
    assert.ok(!(await Deno.readTextFile(file)).includes(API_KEY), file);
  }
  assert.ok(!(await Deno.readTextFile(outputs["result-file"] ?? "")).includes(API_KEY));
  assert.ok(!ran.stdout.includes(API_KEY) && !ran.stderr.includes(API_KEY));
});

Deno.test("run.sh exposes the structured answer of --output-schema from the real moat", async () => {
  await using server = await startFakeOpenAI();
  await using t = await createTempWorkspace();
  await using home = await createTempWorkspace();
  await using ws = await createTempWorkspace({
    "schema.json": JSON.stringify({
      type: "object",
      properties: { verdict: { enum: ["approve", "request-changes"] } },
      required: ["verdict"],
    }),
  });
  const moat = await install(t, await realMoatShim(t.path("args"), t.path("env")));
  server.script(
    reply.toolCalls([{ id: "f1", name: "final_answer", arguments: { verdict: "approve" } }]),
  );
  const ran = await runStep(t, home, {
    MOAT_ACTION_BIN: moat,
    MOAT_ACTION_PROMPT: "review",
    MOAT_ACTION_API_KEY: API_KEY,
    MOAT_ACTION_BASE_URL: server.baseURL,
    MOAT_ACTION_OUTPUT_SCHEMA: "schema.json",
    MOAT_ACTION_MAX_TURNS: "5",
    MOAT_ACTION_WORKING_DIRECTORY: ws.dir,
  });
  assert.equal(ran.code, 0, ran.stderr);
  const outputs = parseOutputs(await Deno.readTextFile(t.path("github-output")));
  assert.equal(outputs["exit-code"], "0");
  assert.deepEqual(JSON.parse(outputs.structured ?? ""), { verdict: "approve" });
  assert.equal(typeof JSON.parse(outputs.usage ?? "").outputTokens, "number");
});

Deno.test("run.sh fails the step with moat's exit code but still writes outputs; fail-on-error: false exits 0", async () => {
  await using server = await startFakeOpenAI();
  await using t = await createTempWorkspace();
  await using home = await createTempWorkspace();
  await using ws = await createTempWorkspace();
  const moat = await install(t, await realMoatShim(t.path("args"), t.path("env")));
  for (const failOnError of ["true", "false"]) {
    await Deno.writeTextFile(t.path("github-output"), "");
    await Deno.writeTextFile(t.path("step-summary"), "");
    server.script(fault.unauthorized());
    const ran = await runStep(t, home, {
      MOAT_ACTION_BIN: moat,
      MOAT_ACTION_PROMPT: "hello",
      MOAT_ACTION_API_KEY: API_KEY,
      MOAT_ACTION_BASE_URL: server.baseURL,
      MOAT_ACTION_WORKING_DIRECTORY: ws.dir,
      MOAT_ACTION_FAIL_ON_ERROR: failOnError,
    });
    assert.equal(ran.code, failOnError === "true" ? 1 : 0, ran.stderr);
    assert.match(
      ran.stdout,
      failOnError === "true"
        ? /^::error title=moat::moat exited 1/m
        : /^::warning title=moat::moat exited 1/m,
    );
    const outputs = parseOutputs(await Deno.readTextFile(t.path("github-output")));
    assert.equal(outputs["exit-code"], "1");
    assert.equal(outputs["stop-reason"], "error");
    assert.equal(outputs.answer, "");
    const summary = await Deno.readTextFile(t.path("step-summary"));
    assert.match(summary, /\| exit code \| 1 \|/);
    assert.match(summary, /\| error \| auth: /);
    for (const text of [summary, JSON.stringify(outputs), ran.stdout, ran.stderr]) {
      assert.ok(!text.includes(API_KEY));
    }
  }
});

Deno.test("run.sh maps every input to its flag, in order, with the prompt last after --", async () => {
  await using t = await createTempWorkspace();
  await using home = await createTempWorkspace();
  await using ws = await createTempWorkspace();
  const canned = {
    version: 1,
    type: "result",
    text: "partial work",
    stopReason: "maxIterations",
    limit: "maxTurns",
    turns: 7,
    usage: { inputTokens: 100, outputTokens: 20, cachedTokens: 5, totalTokens: 120 },
    cost: 0.25,
    toolCalls: 3,
    failed: 0,
    denied: 1,
    exitCode: 3,
    structured: { verdict: "ok", issues: [] },
  };
  const moat = await install(t, cannedShim(t.path("args"), canned, 3));
  const inputs = {
    MOAT_ACTION_BIN: moat,
    MOAT_ACTION_PROMPT: "review this -- --allow-all",
    MOAT_ACTION_API_KEY: API_KEY,
    MOAT_ACTION_MODEL: " gpt-x ",
    MOAT_ACTION_ALLOW_READ: "src, tests\ndocs",
    MOAT_ACTION_ALLOW_WRITE: "out\n",
    MOAT_ACTION_ALLOW_RUN: "git,deno",
    MOAT_ACTION_ALLOW_NET: "api.github.com",
    MOAT_ACTION_OUTPUT_SCHEMA: "schema.json",
    MOAT_ACTION_MAX_TURNS: "10",
    MOAT_ACTION_MAX_WALL_TIME: "600",
    MOAT_ACTION_MAX_TOOL_CALLS: "50",
    MOAT_ACTION_MAX_TOKENS_TOTAL: "200000",
    MOAT_ACTION_MAX_COST: "1.5",
    MOAT_ACTION_EXTRA_ARGS: "--verbose  --fail-on-deny\n--context-window 8000",
    MOAT_ACTION_WORKING_DIRECTORY: ws.dir,
  };
  const ran = await runStep(t, home, inputs);
  assert.equal(ran.code, 3, ran.stderr);
  assert.deepEqual(await readArgs(t.path("args")), [
    ...FIXED_ARGS,
    "--model=gpt-x",
    "--allow-read=src,tests,docs",
    "--allow-write=out",
    "--allow-run=git,deno",
    "--allow-net=api.github.com",
    "--output-schema=schema.json",
    "--max-turns=10",
    "--max-wall-time=600",
    "--max-tool-calls=50",
    "--max-tokens-total=200000",
    "--max-cost=1.5",
    "--verbose",
    "--fail-on-deny",
    "--context-window",
    "8000",
    "--",
    "review this -- --allow-all",
  ]);
  const outputs = parseOutputs(await Deno.readTextFile(t.path("github-output")));
  assert.equal(outputs["exit-code"], "3");
  assert.equal(outputs["stop-reason"], "maxIterations");
  assert.equal(outputs.answer, "partial work");
  assert.deepEqual(JSON.parse(outputs.structured ?? ""), canned.structured);
  assert.deepEqual(JSON.parse(outputs.usage ?? ""), canned.usage);
  const summary = await Deno.readTextFile(t.path("step-summary"));
  for (
    const row of [
      "| stop reason | maxIterations |",
      "| exit code | 3 |",
      "| limit | maxTurns |",
      "| turns | 7 |",
      "| tokens in / out / cached | 100 / 20 / 5 |",
      "| cost | 0.25 |",
    ]
  ) assert.ok(summary.includes(row), `${row} in ${summary}`);

  // Without output-schema, "structured" stays empty; an empty allow-read passes no flag.
  await Deno.writeTextFile(t.path("github-output"), "");
  const plain = await runStep(t, home, {
    MOAT_ACTION_BIN: moat,
    MOAT_ACTION_PROMPT: "hi",
    MOAT_ACTION_ALLOW_READ: "",
    MOAT_ACTION_FAIL_ON_ERROR: "False",
  }, ws.dir);
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual(await readArgs(t.path("args")), [
    ...FIXED_ARGS,
    "--deny-write=.",
    "--",
    "hi",
  ]);
  assert.equal(parseOutputs(await Deno.readTextFile(t.path("github-output"))).structured, "");

  // No prompt: a configuration error before moat runs.
  const none = await runStep(t, home, { MOAT_ACTION_BIN: moat, MOAT_ACTION_PROMPT: " \n" }, ws.dir);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /the input prompt is required/);
});

Deno.test("action.yml hands every input to the scripts by environment, and docs/ci.md lists each", async () => {
  const action = await Deno.readTextFile(join(PROJECT_ROOT, "action.yml"));
  const docs = await Deno.readTextFile(join(PROJECT_ROOT, "docs/ci.md"));
  const scripts = await Deno.readTextFile(INSTALL) + await Deno.readTextFile(RUN);
  const section = (name: string) =>
    action.slice(action.indexOf(`\n${name}:\n`) + 1).split(/\n\S/)[0];
  const inputs = [...(section("inputs") ?? "").matchAll(/^ {2}([a-z-]+):$/gm)].map((m) => m[1]);
  assert.ok(inputs.length >= 20, inputs.join(" "));
  for (const input of inputs) {
    const env = new RegExp(`^ +(MOAT_ACTION_[A-Z_]+): \\$\\{\\{ inputs\\.${input} \\}\\}$`, "m")
      .exec(action);
    assert.ok(env, `input ${input} reaches a script as an environment variable`);
    assert.ok(scripts.includes(env[1] as string), `a script reads ${env[1]}`);
    assert.ok(docs.includes(`| \`${input}\``), `docs/ci.md lists ${input}`);
  }
  assert.doesNotMatch(
    action.slice(action.indexOf("\nruns:")),
    /run: .*\$\{\{/,
    "no expression is pasted into script text",
  );
  const outputs = [...(section("outputs") ?? "").matchAll(/^ {2}([a-z-]+):$/gm)].map((m) => m[1]);
  assert.deepEqual(outputs, [
    "answer",
    "exit-code",
    "stop-reason",
    "usage",
    "structured",
    "result-file",
  ]);
  for (const output of outputs) assert.ok(docs.includes(`| \`${output}\``), output);
});
