/**
 * Runs a hook command with `bash -c` outside any sandbox, in its own process group (killed whole
 * at the timeout), with the given environment only, stdin written then closed, output bounded.
 * The stand-in until the confined runner is wired; its shape is HookCommandRunner's.
 */
import { childEnv } from "./process.ts";

/** Most bytes kept of each of stdout and stderr. */
const MAX_OUTPUT_BYTES = 64 * 1024;

async function readBounded(stream: ReadableStream<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size < MAX_OUTPUT_BYTES) chunks.push(chunk.subarray(0, MAX_OUTPUT_BYTES - size));
    size += chunk.length;
  }
  const all = new Uint8Array(Math.min(size, MAX_OUTPUT_BYTES));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}

/** How a hook command ended (the shape of src/hooks/runner.ts's HookRunResult). */
export interface HookProcessResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  error?: string;
  durationMs: number;
}

/** Runs hook commands (the shape of src/hooks/runner.ts's HookCommandRunner). */
export interface HookProcessRunner {
  run(
    spec: { command: string; timeoutSec: number },
    stdin: string,
    options: { cwd: string; signal?: AbortSignal },
  ): Promise<HookProcessResult>;
}

/** The hook runner without confinement: `env` gives each hook's whole environment. */
export function createUnconfinedHookRunner(env: () => Record<string, string>): HookProcessRunner {
  return {
    async run(spec, stdin, options) {
      const started = performance.now();
      const ended = (rest: { exitCode: number | null; stdout: string; stderr: string }) => ({
        ...rest,
        timedOut,
        durationMs: Math.round(performance.now() - started),
      });
      let timedOut = false;
      let child: Deno.ChildProcess;
      try {
        child = new Deno.Command("bash", {
          args: ["-c", spec.command],
          cwd: options.cwd,
          env: childEnv(env()),
          clearEnv: true,
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
          detached: true,
        }).spawn();
      } catch (e) {
        return {
          ...ended({ exitCode: null, stdout: "", stderr: "" }),
          error: `it could not start: ${e instanceof Error ? e.message : String(e)}`,
        };
      }
      const killGroup = () => {
        try {
          Deno.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, spec.timeoutSec * 1000);
      const onAbort = () => killGroup();
      options.signal?.addEventListener("abort", onAbort);
      const out = readBounded(child.stdout);
      const err = readBounded(child.stderr);
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(stdin)).catch(() => {});
      await writer.close().catch(() => {});
      try {
        const status = await child.status;
        // Children that outlive bash would hold the pipes open: end the group.
        killGroup();
        const [stdout, stderr] = await Promise.all([out, err]);
        return ended({
          exitCode: timedOut || status.signal !== null ? null : status.code,
          stdout,
          stderr,
        });
      } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
      }
    },
  };
}
