import assert from "node:assert/strict";
import { join } from "node:path";
import { FsError } from "../../src/tools/ops.ts";
import {
  createDenoProcessOps,
  createProcessRegistry,
  DEFAULT_PATH,
} from "../../src/sys/process.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { isAlive, survivors } from "../tools/_helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let out = "";
  for await (const chunk of stream) out += dec.decode(chunk, { stream: true });
  return out;
}

Deno.test("createDenoProcessOps() passes only the given environment, PATH defaulted", async () => {
  const ops = createDenoProcessOps();
  assert.ok(Deno.env.get("HOME") !== undefined, "test precondition: HOME is set");
  const spawned = ops.spawn("bash", ["-c", 'echo "$PATH|${HOME-unset}|$ONLY"'], {
    cwd: "/",
    env: { ONLY: "given" },
  });
  assert.ok(spawned.ok);
  const [out, err, status] = await Promise.all([
    readAll(spawned.child.stdout),
    readAll(spawned.child.stderr),
    spawned.child.status,
  ]);
  assert.equal(out, `${DEFAULT_PATH}|unset|given\n`);
  assert.equal(err, "");
  assert.deepEqual(status, { code: 0, signal: null });
});

Deno.test("createDenoProcessOps() reports a missing working directory as not_found", () => {
  const spawned = createDenoProcessOps().spawn("bash", ["-c", "true"], {
    cwd: "/nonexistent-moat-dir",
    env: {},
  });
  assert.equal(spawned.ok, false);
  if (!spawned.ok) {
    assert.equal(spawned.reason, "not_found");
    assert.match(spawned.message, /nonexistent-moat-dir/);
  }
});

Deno.test("createDenoProcessOps() starts the child as leader of its own process group", async () => {
  const spawned = createDenoProcessOps().spawn("bash", ["-c", "ps -o pgid= -p $$"], {
    cwd: "/",
    env: {},
  });
  assert.ok(spawned.ok);
  const [out] = await Promise.all([
    readAll(spawned.child.stdout),
    readAll(spawned.child.stderr),
    spawned.child.status,
  ]);
  assert.equal(Number(out.trim()), spawned.child.pid);
});

Deno.test("killGroup() kills grandchildren and reports the signal", async () => {
  const spawned = createDenoProcessOps().spawn(
    "bash",
    ["-c", "sleep 300 & echo $!; sleep 300 & echo $!; wait"],
    { cwd: "/", env: {} },
  );
  assert.ok(spawned.ok);
  const child = spawned.child;
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (text.split("\n").length < 3) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const pids = text.trim().split("\n").map(Number);
  assert.equal(pids.length, 2);
  assert.ok(pids.every(isAlive));
  await child.killGroup();
  assert.deepEqual(await child.status, { code: null, signal: "SIGKILL" });
  await reader.cancel();
  await child.stderr.cancel();
  await child.killGroup(); // repeating is harmless
  // SIGKILL is delivered asynchronously; the group is gone within moments.
  assert.deepEqual(await survivors(pids), []);
});

Deno.test("createSpillFile() creates parents and refuses to overwrite", async () => {
  await using ws = await createTempWorkspace();
  const ops = createDenoProcessOps();
  const path = join(ws.dir, "spill", "deep", "a.log");
  const file = await ops.createSpillFile(path);
  await file.write(enc.encode("hello "));
  await file.write(enc.encode("world"));
  await file.close();
  await file.close();
  assert.equal(await Deno.readTextFile(path), "hello world");
  await assert.rejects(() => ops.createSpillFile(path), FsError);
});

Deno.test("createProcessRegistry().killAll() kills every tracked group", async () => {
  await using ws = await createTempWorkspace();
  const ops = createDenoProcessOps();
  const registry = createProcessRegistry();
  const children = [];
  for (let i = 0; i < 2; i++) {
    const spawned = ops.spawn("bash", ["-c", `sleep 300 & echo $! > pid${i}; wait`], {
      cwd: ws.dir,
      env: {},
    });
    assert.ok(spawned.ok);
    children.push(spawned.child);
    registry.add(spawned.child);
  }
  assert.deepEqual(registry.pids(), children.map((c) => c.pid));
  const pidFiles = [ws.path("pid0"), ws.path("pid1")];
  for (let i = 0; i < 100; i++) {
    const ready = await Promise.all(
      pidFiles.map((p) => Deno.readTextFile(p).then((t) => t.endsWith("\n"), () => false)),
    );
    if (ready.every(Boolean)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const grandchildren = await Promise.all(
    pidFiles.map(async (p) => Number(await Deno.readTextFile(p))),
  );
  assert.ok(grandchildren.every(isAlive));
  await registry.killAll();
  assert.deepEqual(registry.pids(), []);
  for (const c of children) {
    assert.equal((await c.status).signal, "SIGKILL");
    await c.stdout.cancel();
    await c.stderr.cancel();
  }
  assert.deepEqual(await survivors(grandchildren), []);
});

Deno.test("createProcessRegistry() stops tracking a group when told", () => {
  const registry = createProcessRegistry();
  const stop = registry.add({ pid: 4242, killGroup: () => Promise.resolve() });
  assert.deepEqual(registry.pids(), [4242]);
  stop();
  stop();
  assert.deepEqual(registry.pids(), []);
});

Deno.test("killGroup() still kills the group inside a Worker with scoped run permission", async () => {
  await using ws = await createTempWorkspace();
  const moduleUrl = new URL("../../src/sys/process.ts", import.meta.url).href;
  const code = `
    import { createDenoProcessOps } from ${JSON.stringify(moduleUrl)};
    const spawned = createDenoProcessOps().spawn("bash", ["-c", "sleep 300 & echo $!; wait"], {
      cwd: "/", env: {},
    });
    if (!spawned.ok) { self.postMessage({ error: spawned.message }); } else {
      const c = spawned.child;
      const reader = c.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes("\\n")) { const r = await reader.read(); if (r.done) break; text += r.value; }
      let denied = false;
      try { Deno.kill(-c.pid, "SIGKILL"); } catch (e) { denied = e instanceof Deno.errors.NotCapable; }
      await c.killGroup();
      const status = await c.status;
      await reader.cancel(); await c.stderr.cancel();
      self.postMessage({ grandchild: Number(text.trim()), denied, status });
    }
  `;
  const blobUrl = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  const worker = new Worker(blobUrl, {
    type: "module",
    deno: {
      permissions: {
        run: ["bash"],
        read: [ws.dir],
        write: false,
        net: false,
        env: false,
        ffi: false,
        sys: false,
        import: true,
      },
    },
  });
  try {
    const result = await new Promise<
      { grandchild: number; denied: boolean; status: unknown; error?: string }
    >((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(e.message));
      };
    });
    assert.equal(result.error, undefined);
    assert.equal(result.denied, true, "Deno.kill on a group must be refused under scoped run");
    assert.deepEqual(result.status, { code: null, signal: "SIGKILL" });
    assert.deepEqual(await survivors([result.grandchild]), []);
  } finally {
    worker.terminate();
    URL.revokeObjectURL(blobUrl);
  }
});
