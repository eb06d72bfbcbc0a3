/**
 * Running moat on a directory of your own before a release exists: `deno task install` (the
 * README's install line) and `deno task start` from another directory.
 */
import assert from "node:assert/strict";
import { delimiter, dirname, join } from "node:path";
import { readStartTask } from "../../scripts/compile.ts";
import { wrapperFlags } from "../../scripts/install.ts";
import { startDirectory, TASK_CWD_VARIABLE } from "../../src/cli/main.ts";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, type CliResult, PROJECT_ROOT, toolResultOf } from "./_cli.ts";

const DENO_JSON = join(PROJECT_ROOT, "deno.json");

async function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<CliResult> {
  const out = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** A model that lists the workspace with `ls`, then answers. */
function listThenAnswer(server: Awaited<ReturnType<typeof startFakeOpenAI>>) {
  server.script(
    reply.toolCalls([{ id: "ls_1", name: "ls", arguments: { path: "." } }]),
    reply.text("Listed."),
  );
}

Deno.test({
  name: "deno task install installs a moat that runs, from any directory, on that directory",
  async fn() {
    await using installRoot = await createTempWorkspace({}, { prefix: "moat-install-" });
    await using home = await createTempWorkspace();
    await using app = await createTempWorkspace({ "marker-in-app.txt": "" }, { prefix: "app-" });
    await using server = await startFakeOpenAI();
    // Every download would go through a proxy that is not there: the install works from Deno's
    // cache alone (and never needs JSR).
    const offline = {
      HTTP_PROXY: "http://127.0.0.1:9",
      HTTPS_PROXY: "http://127.0.0.1:9",
      NO_PROXY: "127.0.0.1",
    };
    const installed = await run(Deno.execPath(), ["task", "-q", "--config", DENO_JSON, "install"], {
      cwd: app.dir,
      env: cliEnv(home.dir, { ...offline, DENO_INSTALL_ROOT: installRoot.dir }),
    });
    assert.equal(installed.code, 0, installed.stderr);
    const command = join(installRoot.dir, "bin", "moat");
    const start = await readStartTask(DENO_JSON);
    assert.deepEqual(
      wrapperFlags(await Deno.readTextFile(command)).sort(),
      [...start.flags].sort(),
      "the installed command runs with exactly the start task's flags",
    );

    listThenAnswer(server);
    const path = [join(installRoot.dir, "bin"), dirname(Deno.execPath()), Deno.env.get("PATH")]
      .join(delimiter);
    const result = await run("moat", ["--no-session", "what is here?"], {
      cwd: app.dir,
      env: cliEnv(home.dir, {
        ...offline,
        PATH: path,
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: "k",
      }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "Listed.\n");
    assert.equal(
      result.stderr.split("\n")[0],
      `moat: workspace ${app.dir} (model gpt-4.1, sandbox bwrap)`,
    );
    assert.match(toolResultOf(server, "ls_1"), /marker-in-app\.txt/);

    // The installed config (its import map and lock) and command script are moat's code: under a
    // grant that holds them they stay read-only (the attempts are harmless in this temp root).
    const config = join(installRoot.dir, "bin", ".moat", "deno.json");
    const before = {
      config: await Deno.readTextFile(config),
      command: await Deno.readTextFile(command),
    };
    server.script(
      reply.toolCalls([
        { id: "w1", name: "write", arguments: { path: config, content: "{}" } },
        {
          id: "b1",
          name: "bash",
          arguments: { command: `echo evil >> '${command}'; echo "rc=$?"` },
        },
      ]),
      reply.text("Done."),
    );
    const grant = `--allow-write=.,${installRoot.dir}`;
    const attempt = await run("moat", ["--no-session", grant, "change moat"], {
      cwd: app.dir,
      env: cliEnv(home.dir, {
        ...offline,
        PATH: path,
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: "k",
      }),
    });
    assert.equal(attempt.code, 0, attempt.stderr);
    assert.match(
      toolResultOf(server, "w1"),
      /\.moat" is protected because it holds code moat runs outside the sandbox/,
    );
    assert.doesNotMatch(toolResultOf(server, "b1"), /rc=0\b/);
    // bash ran (this run is in bubblewrap, as the first one said) and its append failed.
    assert.match(toolResultOf(server, "b1"), /rc=[1-9]/);
    assert.deepEqual(
      { config: await Deno.readTextFile(config), command: await Deno.readTextFile(command) },
      before,
    );
  },
});

Deno.test("deno task start run from another directory works on that directory; --cwd is relative to it", async () => {
  await using home = await createTempWorkspace();
  await using app = await createTempWorkspace({ "sub/marker-in-sub.txt": "", "top.txt": "" });
  await using server = await startFakeOpenAI();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const task = (args: string[]) =>
    run(Deno.execPath(), ["task", "-q", "--config", DENO_JSON, "start", ...args], {
      cwd: app.dir,
      env,
    });

  listThenAnswer(server);
  const here = await task(["--no-session", "what is here?"]);
  assert.equal(here.code, 0, here.stderr);
  assert.match(here.stderr.split("\n")[0] ?? "", new RegExp(`^moat: workspace ${app.dir} \\(`));
  assert.match(toolResultOf(server, "ls_1"), /top\.txt/);

  listThenAnswer(server);
  const sub = await task(["--cwd", "sub", "--no-session", "what is here?"]);
  assert.equal(sub.code, 0, sub.stderr);
  assert.match(sub.stderr.split("\n")[0] ?? "", new RegExp(`^moat: workspace ${app.dir}/sub \\(`));
});

Deno.test("startDirectory() honours the start task's INIT_CWD only in moat's checkout, and hides it from what moat starts", async () => {
  const fs = { realPath: (p: string) => Promise.resolve(p.replace(/\/$/, "")) };
  const env = { [TASK_CWD_VARIABLE]: "/home/me/app", HOME: "/home/me" };
  const viaTask = await startDirectory({ env, cwd: PROJECT_ROOT }, fs);
  assert.deepEqual(viaTask, { env: { HOME: "/home/me" }, cwd: "/home/me/app" });
  // Left in the environment (say by a program moat's task started): a run elsewhere stays there.
  const elsewhere = await startDirectory({ env, cwd: "/srv/other" }, fs);
  assert.deepEqual(elsewhere, { env: { HOME: "/home/me" }, cwd: "/srv/other" });
  // Not through the task at all, or INIT_CWD unset (the task's "$INIT_CWD" is then empty).
  const plain = await startDirectory({ env: { HOME: "/h" }, cwd: PROJECT_ROOT }, fs);
  assert.deepEqual(plain, { env: { HOME: "/h" }, cwd: PROJECT_ROOT });
  const empty = await startDirectory({ env: { [TASK_CWD_VARIABLE]: "" }, cwd: PROJECT_ROOT }, fs);
  assert.deepEqual(empty, { env: {}, cwd: PROJECT_ROOT });
});

Deno.test("the start task passes INIT_CWD to moat under the variable moat reads", async () => {
  const start = await readStartTask(DENO_JSON);
  assert.deepEqual(start.env, { [TASK_CWD_VARIABLE]: '"$INIT_CWD"' });
});
