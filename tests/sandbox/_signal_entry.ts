/**
 * Test entry run as its own process (group leader): opens a sandbox with the fake tools and
 * prints one JSON line per step, so tests can signal its process group or watch its stderr.
 *   deno run … _signal_entry.ts MODE WORKSPACE SPILL sigint  → ready, then the `wait` call's result
 *     once SIGINT arrives (the call is aborted like moat aborts a run on Ctrl-C)
 *   deno run … _signal_entry.ts MODE WORKSPACE SPILL crash   → the `crash` call's result
 */
import { defaultGrants } from "../support/grants.ts";
import { createSandbox } from "../../src/sandbox/mod.ts";
import { createDenoSandboxSys } from "../../src/sys/sandbox.ts";
import { fakeTools } from "./_fake_tools.ts";
import { callTool, HOST_SCRIPT, textOf } from "./_helpers.ts";

const FAKE_WORKER = new URL("./_fake_worker.ts", import.meta.url).href;

function emit(value: unknown): void {
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(value) + "\n"));
}

if (import.meta.main) {
  const [mode, ws, spill, scenario] = Deno.args;
  if (ws === undefined || spill === undefined) throw new Error("usage: MODE WORKSPACE SPILL STEP");
  const sb = await createSandbox({
    cwd: ws,
    grants: defaultGrants(ws),
    spillDir: spill,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
    secretEnvNames: [],
    sandbox: mode === "bwrap" ? "require" : "off",
    hostScript: HOST_SCRIPT,
    createTools: fakeTools,
    workerUrl: FAKE_WORKER,
    sys: createDenoSandboxSys(),
  });
  try {
    if (scenario === "sigint") {
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      Deno.addSignalListener("SIGINT", onSigint);
      // The host is up once a first call went through it.
      emit({ ready: textOf(await callTool(sb, "echo", { text: "up" })).trim() });
      const waited = await callTool(sb, "wait", {}, { signal: controller.signal });
      Deno.removeSignalListener("SIGINT", onSigint);
      emit({ result: textOf(waited).trim() });
    } else {
      emit({ result: textOf(await callTool(sb, "crash", {})).trim() });
    }
  } finally {
    await sb.close();
  }
}
