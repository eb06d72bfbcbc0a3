/**
 * The real hook runner under the real sandbox: a confined hook reads its input and answers with
 * its exit code, stdout and stderr, but cannot read outside the grants, reach the network or see
 * the provider key, and is killed with its children at its timeout; `sandbox: false` runs it
 * unconfined with the same environment; without bubblewrap a confined hook does not run.
 */
import assert from "node:assert/strict";
import { createHookCommandRunner, HOOK_OUTPUT_CAP } from "../../src/hooks/confined_runner.ts";
import type { HookCommandRunner, HookCommandSpec } from "../../src/hooks/runner.ts";
import type { Sandbox } from "../../src/sandbox/mod.ts";
import { createDenoHookProcessOps } from "../../src/sys/hook_process.ts";
import { processesMatching } from "../e2e/_cli.ts";
import { BWRAP, createLayout, type Layout, openSandbox, SECRET } from "../sandbox/_helpers.ts";
import { defaultGrants, type Grants, grantsOf } from "../support/grants.ts";
import { webServer } from "../support/web_server.ts";

const KEY = "sk-moat-hook-test-91c2";

function bwrapTest(name: string, fn: () => Promise<void>) {
  Deno.test({ name: `[bwrap] hook runner: ${name}`, ignore: !BWRAP, fn });
}

function spec(command: string, more: Partial<HookCommandSpec> = {}): HookCommandSpec {
  return { command, timeoutSec: 30, source: "user", sandbox: true, ...more };
}

/** A layout whose HOME (outside the workspace) holds an SSH key, and a sandbox over it. */
async function openHookSandbox(
  mode: "bwrap" | "worker",
  grants: (layout: Layout) => Grants = (l) => defaultGrants(l.ws),
): Promise<{ layout: Layout; sb: Sandbox; runner: HookCommandRunner; home: string }> {
  const layout = await createLayout();
  const home = layout.root.path("home");
  await Deno.mkdir(`${home}/.ssh`, { recursive: true });
  await Deno.writeTextFile(`${home}/.ssh/id_ed25519`, `${SECRET} key\n`);
  const sb = await openSandbox(layout, mode, grants(layout), {
    env: {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: home,
      LANG: "C.UTF-8",
      OPENAI_API_KEY: KEY,
      MY_TOKEN: KEY,
    },
  });
  const runner = createHookCommandRunner({
    confine: (s) => sb.confine(s),
    toolEnv: () => sb.toolEnv(),
    process: createDenoHookProcessOps(),
  });
  return { layout, sb, runner, home };
}

bwrapTest(
  "a hook reads its JSON input, answers by exit code and output",
  async () => {
    const { layout, sb, runner } = await openHookSandbox("bwrap");
    await using _ = layout.root;
    try {
      const input = JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "bash" });
      const echo = await runner.run(
        spec(
          'input=$(cat); [[ $input =~ \\"tool_name\\":\\"([^\\"]*)\\" ]] && ' +
            'echo "tool=${BASH_REMATCH[1]} pwd=$PWD pid=$$"; echo to-stderr >&2',
        ),
        input,
        { cwd: layout.ws },
      );
      assert.equal(echo.error, undefined);
      assert.equal(echo.exitCode, 0);
      // Its own pid namespace: bash is the first process after bubblewrap's init.
      assert.equal(echo.stdout, `tool=bash pwd=${layout.ws} pid=2\n`);
      assert.equal(echo.stderr, "to-stderr\n");
      assert.equal(echo.timedOut, false);
      const blocked = await runner.run(spec("echo 'no rm -rf' >&2; exit 2"), input, {
        cwd: layout.ws,
      });
      assert.deepEqual([blocked.exitCode, blocked.stderr], [2, "no rm -rf\n"]);
      const failed = await runner.run(spec("exit 7"), input, { cwd: layout.ws });
      assert.equal(failed.exitCode, 7);
      // A hook that never reads its input still ends normally.
      const ignoring = await runner.run(spec("echo done"), "x".repeat(1 << 20), { cwd: layout.ws });
      assert.deepEqual([ignoring.exitCode, ignoring.stdout], [0, "done\n"]);
    } finally {
      await sb.close();
    }
  },
);

bwrapTest(
  "confined: nothing outside the grants; unconfined: readable",
  async () => {
    // Even with every variable allowed (--allow-env), the provider key stays out.
    const { layout, sb, runner } = await openHookSandbox("bwrap", (l) => ({
      ...defaultGrants(l.ws),
      env: true,
    }));
    await using _ = layout.root;
    try {
      const command = `cat ${layout.outside}/secret.txt; cat ~/.ssh/id_ed25519; ` +
        'echo "key=${OPENAI_API_KEY:-none} token=${MY_TOKEN:+set}"';
      const confined = await runner.run(spec(command), "{}", { cwd: layout.ws });
      assert.equal(confined.error, undefined);
      assert.ok(!confined.stdout.includes(SECRET), confined.stdout);
      assert.match(confined.stderr, /No such file or directory/);
      assert.match(confined.stdout, /key=none token=set/);
      const open = await runner.run(spec(command, { sandbox: false }), "{}", { cwd: layout.ws });
      assert.equal(open.exitCode, 0, open.stderr);
      assert.equal(open.stdout, `${SECRET}\n${SECRET} key\nkey=none token=set\n`);
    } finally {
      await sb.close();
    }
  },
);

bwrapTest("the allow-listed environment holds for confined and unconfined hooks", async () => {
  const { layout, sb, runner, home } = await openHookSandbox("bwrap");
  await using _ = layout.root;
  try {
    const command = 'echo "key=${OPENAI_API_KEY:-none} token=${MY_TOKEN:-none} home=$HOME"';
    for (const sandbox of [true, false]) {
      const result = await runner.run(spec(command, { sandbox }), "{}", { cwd: layout.ws });
      assert.equal(result.stdout, `key=none token=none home=${home}\n`, `sandbox: ${sandbox}`);
    }
  } finally {
    await sb.close();
  }
});

bwrapTest("a confined hook cannot reach the network without --allow-net", async () => {
  const { layout, sb, runner } = await openHookSandbox("bwrap");
  await using _ = layout.root;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepting = (async () => {
    for await (const conn of listener) conn.close();
  })();
  try {
    const command = `exec 3<>/dev/tcp/127.0.0.1/${listener.addr.port} && echo CONNECTED`;
    const confined = await runner.run(spec(command), "{}", { cwd: layout.ws });
    assert.notEqual(confined.exitCode, 0);
    assert.ok(!confined.stdout.includes("CONNECTED"), confined.stdout);
    // The same command unconfined does connect: the listener is there.
    const open = await runner.run(spec(command, { sandbox: false }), "{}", { cwd: layout.ws });
    assert.equal(open.stdout, "CONNECTED\n", open.stderr);
  } finally {
    listener.close();
    await accepting.catch(() => {});
    await sb.close();
  }
});

bwrapTest("scoped --allow-net: the granted host only, one proxy", async () => {
  await using granted = webServer("GRANTED-BODY");
  await using other = webServer("OTHER-BODY");
  const { layout, sb, runner } = await openHookSandbox(
    "bwrap",
    (l) => grantsOf(l.ws, { "allow-net": `127.0.0.1:${granted.port}` }),
  );
  await using _ = layout.root;
  try {
    const curl = (port: number) => `curl -fsS --max-time 20 http://127.0.0.1:${port}/`;
    for (let i = 0; i < 3; i++) {
      const ok = await runner.run(spec(curl(granted.port)), "{}", { cwd: layout.ws });
      assert.equal(ok.stdout, "GRANTED-BODY", ok.stderr);
    }
    const refused = await runner.run(spec(curl(other.port)), "{}", { cwd: layout.ws });
    assert.notEqual(refused.exitCode, 0);
    assert.ok(!refused.stdout.includes("OTHER-BODY"), refused.stdout);
    // Every run of a hook shares one proxy (none is left behind per run).
    const sockets = [...Deno.readDirSync(layout.spill)].filter((e) =>
      e.name.startsWith(".moat-mcp-")
    );
    assert.equal(sockets.length, 1, sockets.map((e) => e.name).join(" "));
  } finally {
    await sb.close();
  }
});

bwrapTest("a hook past its timeout is killed with its children, confined or not", async () => {
  const { layout, sb, runner } = await openHookSandbox("bwrap");
  await using _ = layout.root;
  try {
    for (const sandbox of [true, false]) {
      const needle = `300.${sandbox ? 4711 : 4712}`;
      const result = await runner.run(
        spec(`echo started; sleep ${needle} & wait`, { sandbox, timeoutSec: 0.5 }),
        "{}",
        { cwd: layout.ws },
      );
      assert.equal(result.timedOut, true);
      assert.equal(result.exitCode, null);
      assert.equal(result.error, undefined);
      assert.equal(result.stdout, "started\n");
      assert.deepEqual(await processesMatching(`sleep ${needle}`), [], `sandbox: ${sandbox}`);
    }
  } finally {
    await sb.close();
  }
});

Deno.test("hook runner: without bubblewrap a confined hook is not run, and says why", async () => {
  const { layout, sb, runner } = await openHookSandbox("worker");
  await using _ = layout.root;
  try {
    const marker = layout.root.path("ran");
    const user = await runner.run(spec(`touch ${marker}`), "{}", { cwd: layout.ws });
    assert.equal(user.exitCode, null);
    assert.match(user.error ?? "", /OS sandbox \(bubblewrap\).*"sandbox": false/);
    // A project's hook cannot opt out of the sandbox: still not run, and no such advice.
    const project = await runner.run(
      spec(`touch ${marker}`, { source: "project", sandbox: false }),
      "{}",
      { cwd: layout.ws },
    );
    assert.match(project.error ?? "", /OS sandbox \(bubblewrap\)/);
    assert.doesNotMatch(project.error ?? "", /"sandbox": false/);
    await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
    // A user's own hook marked `"sandbox": false` runs.
    const open = await runner.run(spec(`touch ${marker}`, { sandbox: false }), "{}", {
      cwd: layout.ws,
    });
    assert.equal(open.exitCode, 0, open.error);
    assert.ok((await Deno.stat(marker)).isFile);
  } finally {
    await sb.close();
  }
});

/** A runner without bubblewrap, for hooks marked `"sandbox": false`. */
function unconfinedRunner(outputCap?: number): HookCommandRunner {
  return createHookCommandRunner({
    confine: () => undefined,
    toolEnv: () => ({ PATH: "/usr/bin:/bin" }),
    process: createDenoHookProcessOps(),
    ...(outputCap === undefined ? {} : { outputCap }),
  });
}

Deno.test("hook runner: stdout and stderr are capped, the rest is read and dropped", async () => {
  const runner = unconfinedRunner();
  const result = await runner.run(
    spec("head -c 200000 /dev/zero | tr '\\0' a; head -c 100000 /dev/zero | tr '\\0' b >&2", {
      sandbox: false,
    }),
    "",
    { cwd: "/" },
  );
  assert.equal(result.exitCode, 0);
  const note = `\n[moat: output cut after ${HOOK_OUTPUT_CAP} bytes]`;
  assert.equal(result.stdout, "a".repeat(HOOK_OUTPUT_CAP) + note);
  assert.equal(result.stderr, "b".repeat(HOOK_OUTPUT_CAP) + note);
  const small = await unconfinedRunner(4).run(spec("printf 123456", { sandbox: false }), "", {
    cwd: "/",
  });
  assert.equal(small.stdout, "1234\n[moat: output cut after 4 bytes]");
});

Deno.test("hook runner: an abort kills the hook and its children", async () => {
  const runner = unconfinedRunner();
  const controller = new AbortController();
  const needle = "sleep 300.4713";
  const running = runner.run(spec(`${needle} & wait`, { sandbox: false }), "", {
    cwd: "/",
    signal: controller.signal,
  });
  while ((await processesMatching(needle)).length === 0) {
    await new Promise((r) => setTimeout(r, 20));
  }
  controller.abort();
  const result = await running;
  assert.deepEqual([result.exitCode, result.timedOut, result.error], [null, false, undefined]);
  assert.deepEqual(await processesMatching(needle), []);
});

Deno.test("hook runner: a program that cannot start is an error result", async () => {
  const runner = createHookCommandRunner({
    confine: () => ({ argv: ["/nonexistent/bwrap", "--"] }),
    toolEnv: () => ({ PATH: "/usr/bin:/bin" }),
    process: createDenoHookProcessOps(),
  });
  const result = await runner.run(spec("true"), "", { cwd: "/" });
  assert.equal(result.exitCode, null);
  assert.match(result.error ?? "", /The hook could not start: .*\/nonexistent\/bwrap/);
  const refused = await createHookCommandRunner({
    confine: () => ({ error: 'the granted path "/x" changed since the start' }),
    toolEnv: () => ({}),
    process: createDenoHookProcessOps(),
  }).run(spec("true"), "", { cwd: "/" });
  assert.equal(
    refused.error,
    'The hook was not run: the granted path "/x" changed since the start',
  );
});

Deno.test("hook runner: a process that left the hook's group does not keep it running", async () => {
  const needle = "sleep 300.4714";
  // Unconfined, `setsid` takes it out of the group; it holds stdout open after bash exits.
  const result = await unconfinedRunner().run(
    spec(`setsid ${needle} & echo out`, { sandbox: false, timeoutSec: 0.2 }),
    "",
    { cwd: "/" },
  );
  try {
    assert.deepEqual([result.exitCode, result.timedOut, result.stdout], [0, false, "out\n"]);
  } finally {
    for (const pid of await processesMatching(needle)) Deno.kill(pid, "SIGKILL");
  }
});
