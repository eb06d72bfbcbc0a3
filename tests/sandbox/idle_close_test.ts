/**
 * A tool host that was sent no call is killed at the sandbox's close, with every process of its
 * sandbox: whenever the close comes (bwrap just started, still building the view, or the host
 * ready), nothing of the sandbox runs on and nothing was made in the workspace.
 */
import assert from "node:assert/strict";
import { RUN_LATER } from "../../src/policy/_run_later.ts";
import type { HostProcessOps } from "../../src/sandbox/ops.ts";
import { readLines } from "../../src/sandbox/host/protocol.ts";
import { createDenoHostProcessOps } from "../../src/sys/host_process.ts";
import { defaultGrants } from "../support/grants.ts";
import { entryNames } from "../support/workspace.ts";
import { BWRAP, createLayout, hostGit, openSandbox } from "./_helpers.ts";

/** The live processes (zombies are dead: left out) in the pid namespace `ns`. */
async function processesIn(ns: number): Promise<number[]> {
  const pids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      if (await Deno.readLink(`/proc/${entry.name}/ns/pid`) !== `pid:[${ns}]`) continue;
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
      if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z") {
        pids.push(Number(entry.name));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/**
 * The pid namespace of process `pid`, held open (a namespace's number is reused once it is freed:
 * under parallel tests another sandbox's processes would be counted), or undefined when the
 * process is gone already (its namespace with it).
 */
function holdNamespace(pid: number, ns: number): Deno.FsFile | undefined {
  try {
    const file = Deno.openSync(`/proc/${pid}/ns/pid`);
    if (Deno.readLinkSync(`/proc/${pid}/ns/pid`) === `pid:[${ns}]`) return file;
    file.close();
  } catch {
    // Gone.
  }
  return undefined;
}

/** A started host process: what its bwrap said first (its namespaces), and what it printed. */
interface Watched {
  /** The pid namespace bwrap named in its status line, held open; undefined once gone. */
  namespace: Promise<{ ns: number; held: Deno.FsFile } | undefined>;
  /** Resolves once the host said it is ready. */
  ready: Promise<void>;
  /** Settles once both copies of its output ended. */
  ended: Promise<unknown>;
}

/** Deno's HostProcessOps, with a copy of each host's stdout and stderr read by the test. */
function watchedProcesses(started: Watched[]): HostProcessOps {
  const processes = createDenoHostProcessOps();
  return {
    spawn(program, args, options) {
      const child = processes.spawn(program, args, options);
      const [err, hostErr] = child.stderr.tee();
      const [out, hostOut] = child.stdout.tee();
      let named: (held: { ns: number; held: Deno.FsFile } | undefined) => void = () => {};
      let ready: () => void = () => {};
      const watched: Watched = {
        namespace: new Promise((resolve) => named = resolve),
        ready: new Promise((resolve) => ready = resolve),
        ended: Promise.all([
          (async () => {
            // The first line is bwrap's status (the rest is left: leaving cancels this copy).
            for await (const line of readLines(err)) {
              const status = JSON.parse(line) as Record<string, number>;
              const ns = status["pid-namespace"]!;
              const held = holdNamespace(status["child-pid"]!, ns);
              return named(held === undefined ? undefined : { ns, held });
            }
          })(),
          (async () => {
            for await (const line of readLines(out)) if (line.includes('"ready"')) ready();
          })(),
        ]),
      };
      started.push(watched);
      return { ...child, stdout: hostOut, stderr: hostErr };
    },
  };
}

Deno.test({
  name:
    "[bwrap] a sandbox closed before its tool host was sent a call leaves no process of it and no file in the workspace, however far the host had started",
  ignore: !BWRAP,
  async fn() {
    const layout = await createLayout({ "src/main.ts": "export const x = 1;\n" });
    await using _ = layout.root;
    const ws = layout.ws;
    await hostGit(ws, "init", "-q");
    const before = await entryNames(ws);
    for (const when of ["at once", "named", "ready"] as const) {
      const started: Watched[] = [];
      const sb = await openSandbox(layout, "bwrap", defaultGrants(ws), {
        sys: { processes: watchedProcesses(started) },
      });
      const [host] = started;
      assert.ok(host !== undefined && started.length === 1, when);
      try {
        // The run-later entries' placeholders stand while the sandbox is open.
        assert.ok((await entryNames(ws)).includes(RUN_LATER[0]!.name), when);
        if (when === "named") await host.namespace;
        if (when === "ready") await host.ready;
      } finally {
        await sb.close();
      }
      const namespace = await host.namespace;
      if (namespace !== undefined) {
        assert.deepEqual(await processesIn(namespace.ns), [], when);
        namespace.held.close();
      }
      assert.deepEqual(await entryNames(ws), before, when);
      await host.ended;
    }
  },
});
