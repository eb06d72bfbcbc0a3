import assert from "node:assert/strict";
import { defaultGrants, type Grants } from "../support/grants.ts";
import {
  BWRAP,
  callTool,
  createLayout,
  openSandbox,
  processesWith,
  SECRET,
  snapshot,
  textOf,
  waitGone,
} from "./_helpers.ts";

const KEY = "sk-moat-test-4b1d";

function bashTest(name: string, fn: () => Promise<void>) {
  Deno.test({ name: `[bwrap] bash: ${name}`, ignore: !BWRAP, fn });
}

bashTest("reading or writing outside the grants fails", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws));
  try {
    const before = await snapshot(layout.outside);
    const out = textOf(
      await callTool(sb, "bash", {
        command:
          `cat ../outside/secret.txt link-file link-dir/secret.txt ${layout.outside}/secret.txt; ` +
          `echo pwned > ${layout.outside}/new.txt; echo pwned > ../outside/secret.txt; ` +
          `ls ${layout.root.dir}; ls /root /home 2>&1; echo inside > ok.txt; cat ok.txt`,
      }),
    );
    assert.ok(!out.includes(SECRET), out);
    assert.match(out, /inside/);
    assert.deepEqual(await snapshot(layout.outside), before);
    assert.equal(await Deno.readTextFile(`${layout.ws}/ok.txt`), "inside\n");
  } finally {
    await sb.close();
  }
});

bashTest("a loopback TCP connection fails without --allow-net and works with it", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepting = (async () => {
    for await (const conn of listener) conn.close();
  })();
  const command = `(exec 3<>/dev/tcp/127.0.0.1/${listener.addr.port} && echo CONNECTED) 2>&1`;
  try {
    for (const net of [false, true]) {
      const grants: Grants = { ...defaultGrants(layout.ws), net: net ? true : [] };
      const sb = await openSandbox(layout, "bwrap", grants);
      try {
        const out = textOf(await callTool(sb, "bash", { command }));
        assert.equal(out.includes("CONNECTED"), net, out);
      } finally {
        await sb.close();
      }
    }
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
});

bashTest("env and /proc/*/environ show no provider key, even with -A", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  // Stands in for moat's own processes: outside the sandbox, holding the key in its environment.
  const holder = new Deno.Command("sleep", {
    args: ["300.4242"],
    env: { OPENAI_API_KEY: KEY },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const allowAll: Grants = {
      ...defaultGrants(layout.ws),
      read: true,
      write: true,
      run: true,
      net: true,
      env: true,
      allowAll: true,
    };
    const sb = await openSandbox(layout, "bwrap", allowAll, {
      env: { PATH: "/usr/bin:/bin", OPENAI_API_KEY: KEY, OTHER: "visible" },
    });
    try {
      const out = textOf(
        await callTool(sb, "bash", {
          command: "env; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done; " +
            "ls /proc | grep -c '^[0-9]'",
        }),
      );
      assert.match(out, /OTHER=visible/, "the -A env reached the tool");
      assert.ok(!out.includes(KEY), out);
      assert.ok(processesWith("300.4242").length > 0, "the key holder is alive");
    } finally {
      await sb.close();
    }
  } finally {
    holder.kill("SIGKILL");
    await holder.status;
  }
});

bashTest("a program outside a scoped --allow-run is not found, by name, path or env", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const base = defaultGrants(layout.ws);
  const scoped: Grants = { ...base, run: ["true"], explicit: { ...base.explicit, run: true } };
  const sb = await openSandbox(layout, "bwrap", scoped);
  try {
    // The view itself, without the check before the call (tests/sandbox/bash_programs_test.ts).
    const probe = (cmd: string) =>
      callTool(sb, "bash", { command: `${cmd} >/dev/null 2>&1; echo "rc=$?"` }, { policy: false })
        .then(textOf);
    assert.match(await probe("true"), /rc=0/);
    for (const cmd of ["ls", "/usr/bin/ls", "/bin/ls", "/usr/bin/env ls", "env ls", "cat a.txt"]) {
      const out = await probe(cmd);
      assert.match(out, /rc=(126|127)/, `${cmd}: ${out}`);
    }
    const direct = textOf(
      await callTool(sb, "bash", { command: "ls /usr/bin" }, { policy: false }),
    );
    assert.match(direct, /ls: not granted \(moat's --allow-run does not include it\)/, direct);
  } finally {
    await sb.close();
  }
  const open = await openSandbox(layout, "bwrap", base);
  try {
    const out = textOf(await callTool(open, "bash", { command: "/usr/bin/env ls a.txt" }));
    assert.match(out, /a\.txt/, "without a scoped --allow-run, programs run");
  } finally {
    await open.close();
  }
});

bashTest("background, setsid and double-forked processes die when the call ends", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws));
  try {
    const out = textOf(
      await callTool(sb, "bash", {
        command: "sleep 300.5101 & setsid sleep 300.5102 & ( ( sleep 300.5103 & ) & ); " +
          "nohup sleep 300.5104 >/dev/null 2>&1 & disown; echo started",
      }),
    );
    assert.match(out, /started/);
    for (const n of ["300.5101", "300.5102", "300.5103", "300.5104"]) {
      assert.deepEqual(await waitGone(n), [], `sleep ${n} survived`);
    }
  } finally {
    await sb.close();
  }
});

bashTest("a timed-out or aborted call leaves nothing behind", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws));
  try {
    const timedOut = textOf(
      await callTool(sb, "bash", {
        command: "setsid sleep 300.5201 & ( ( sleep 300.5202 & ) & ); sleep 300.5203",
        timeout: 1,
      }),
    );
    assert.match(timedOut, /timed out/);
    for (const n of ["300.5201", "300.5202", "300.5203"]) {
      assert.deepEqual(await waitGone(n), [], `sleep ${n} survived the timeout`);
    }
    const controller = new AbortController();
    const running = callTool(sb, "bash", {
      command: "setsid sleep 300.5301 & ( ( sleep 300.5302 & ) & ); sleep 300.5303",
    }, { signal: controller.signal });
    await waitFor(() => processesWith("300.5303").length > 0);
    controller.abort();
    assert.match(textOf(await running), /aborted/);
    for (const n of ["300.5301", "300.5302", "300.5303"]) {
      assert.deepEqual(await waitGone(n), [], `sleep ${n} survived the abort`);
    }
  } finally {
    await sb.close();
  }
});

bashTest("closing the sandbox (moat exiting) kills everything in the tool host", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws));
  const running = callTool(sb, "bash", {
    command: "setsid sleep 300.5401 & ( ( sleep 300.5402 & ) & ); sleep 300.5403",
  });
  await waitFor(() => processesWith("300.5403").length > 0);
  await sb.close();
  const result = textOf(await running);
  assert.match(result, /Error|aborted|killed/i, result);
  for (const n of ["300.5401", "300.5402", "300.5403"]) {
    assert.deepEqual(await waitGone(n), [], `sleep ${n} survived close()`);
  }
});

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 25));
  }
}

bashTest(
  "approving a new file outside the grants gives bash nothing of its directory",
  async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws), {
      prompter: { ask: () => Promise.resolve("always") },
    });
    try {
      const created = `${layout.outside}/new.txt`;
      await callTool(sb, "write", { path: created, content: "approved\n" });
      assert.ok(Array.isArray(sb.grants.write) && sb.grants.write.includes(created));
      // The host's view exposes outside/ (the file's nearest existing directory, so that the file
      // can be created); bash must not see the rest of that directory.
      const before = await snapshot(layout.outside);
      const out = textOf(
        await callTool(sb, "bash", {
          command: `cat ${layout.outside}/secret.txt; echo pwned > ${layout.outside}/other.txt; ` +
            `ls ${layout.outside}; echo done`,
        }),
      );
      assert.ok(!out.includes(SECRET), out);
      assert.match(out, /done/);
      assert.deepEqual(await snapshot(layout.outside), before);
    } finally {
      await sb.close();
    }
  },
);
