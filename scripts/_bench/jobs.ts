/**
 * Operations measured inside isolated child processes (see child.ts). Each job returns plain JSON.
 * Modules under test are imported inside the job that needs them, so each child loads only what
 * its measure uses (the `idle` job is the memory baseline).
 */
import { type Static, Type } from "@sinclair/typebox";
import { systemClock } from "../../src/sys/clock.ts";
import { fileURLToPath } from "node:url";
import {
  type AssistantMessage,
  type ContentBlock,
  emptyUsage,
  type ModelClient,
} from "../../src/model/types.ts";
import type { Tool, ToolContext } from "../../src/agent/tool.ts";
import type { CallRecord, PipelineContext } from "../../src/agent/mod.ts";
import { resetPeakRss, statusKb } from "./proc.ts";
import type { GrepWorkerReply, GrepWorkerRequest } from "./grep_worker.ts";
import { epochMs } from "./watch.ts";

/** A job: JSON params in, JSON-serialisable record out. */
export type Job = (params: Record<string, unknown>) => Promise<Record<string, unknown>>;

function str(params: Record<string, unknown>, key: string): string {
  const v = params[key];
  if (typeof v !== "string") throw new TypeError(`job param "${key}" must be a string`);
  return v;
}

function num(params: Record<string, unknown>, key: string): number {
  const v = params[key];
  if (typeof v !== "number") throw new TypeError(`job param "${key}" must be a number`);
  return v;
}

/** Memory right now and the peak since the last reset, in kB. */
function mem(): { rssKb: number; hwmKb: number } {
  return { rssKb: statusKb("self", "VmRSS") ?? NaN, hwmKb: statusKb("self", "VmHWM") ?? NaN };
}

/** Every job by name. */
export const JOBS: Record<string, Job> = {
  /** A Deno process that does nothing: the RSS baseline. */
  idle() {
    return Promise.resolve({ ...mem() });
  },

  /** Baseline of measure 2: `count` direct Deno.readTextFile calls, per-call times in ms. */
  async readDirect(params) {
    const path = str(params, "path");
    const count = num(params, "count");
    for (let i = 0; i < 50; i++) await Deno.readTextFile(path);
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      await Deno.readTextFile(path);
      times.push(performance.now() - t);
    }
    return { times };
  },

  /**
   * Measure 4: one read-tool call (the first in this process) on a huge file; time and RSS growth
   * (peak during the call minus RSS before it, with the peak reset just before the call).
   */
  async bigRead(params) {
    const { createReadTool } = await import("../../src/tools/read.ts");
    const { createDenoFsOps } = await import("../../src/sys/fs.ts");
    const tool = createReadTool({ cwd: str(params, "cwd"), fs: createDenoFsOps() });
    const args = params.offset === undefined
      ? { path: str(params, "path") }
      : { path: str(params, "path"), offset: num(params, "offset") };
    const resetOk = resetPeakRss();
    const before = mem();
    const t = performance.now();
    const out = await tool.execute(args, new AbortController().signal, NO_CTX);
    const ms = performance.now() - t;
    const after = mem();
    return {
      ms,
      resetOk,
      rssBeforeKb: before.rssKb,
      hwmAfterKb: after.hwmKb,
      isError: out.isError === true,
      firstLine: out.output.slice(0, 200).split("\n")[0] ?? "",
      outputBytes: new TextEncoder().encode(out.output).length,
    };
  },

  /**
   * Measure 6: one runAgentLoop turn whose reply holds concurrency-safe calls of the given
   * durations; wall time from the first tool_start to the last tool_end.
   */
  async parallel(params) {
    const { runAgentLoop } = await import("../../src/agent/mod.ts");
    const durations = params.durations as number[];
    let turn = 0;
    const model: ModelClient = {
      stream() {
        turn++;
        const message: AssistantMessage = turn === 1
          ? {
            role: "assistant",
            blocks: durations.map((ms, i) => ({
              type: "toolCall" as const,
              id: `call_${i}`,
              name: "wait",
              arguments: { ms },
            })),
            stopReason: "toolUse",
            usage: emptyUsage(),
          }
          : {
            role: "assistant",
            blocks: [{ type: "text", text: "done" }],
            stopReason: "stop",
            usage: emptyUsage(),
          };
        return Promise.resolve(message);
      },
    };
    let firstStart = NaN;
    let lastEnd = NaN;
    const perCall: number[] = [];
    await runAgentLoop({ history: [], prompt: { role: "user", content: "go" } }, {
      model,
      tools: [waitTool()],
      system: "bench",
      clock: systemClock,
      onEvent(e) {
        if (e.type === "tool_start" && Number.isNaN(firstStart)) firstStart = performance.now();
        if (e.type === "tool_end") {
          lastEnd = performance.now();
          perCall.push(e.durationMs);
        }
      },
    });
    return {
      wallMs: lastEnd - firstStart,
      perCall,
      slowestMs: Math.max(...perCall),
      sumMs: perCall.reduce((a, b) => a + b, 0),
    };
  },

  /**
   * Measure 2: `count` read calls of one small file through the agent's pipeline (lookup,
   * validation, the sandbox's policy, execute through its worker/tool-host hop).
   */
  pipelineReads(params) {
    const path = str(params, "path");
    const count = num(params, "count");
    return withPipeline(params, async (call, mode) => {
      const read = async (id: string) => {
        const record = await call("read", { path }, id);
        if (record.result.isError) throw new Error(`read failed: ${text(record.result.content)}`);
      };
      for (let i = 0; i < 50; i++) await read(`warm_${i}`);
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const t = performance.now();
        await read(`call_${i}`);
        times.push(performance.now() - t);
      }
      return { times, mode };
    });
  },

  /**
   * Measures 3 and 7: one bash call through the pipeline and the sandbox. Reports wall time,
   * start/end as epoch ms (for cross-process timing) and what reached the model.
   */
  bashCall(params) {
    const args: Record<string, unknown> = { command: str(params, "command") };
    if (params.timeout !== undefined) args.timeout = num(params, "timeout");
    return withPipeline(params, async (call, mode) => {
      // Warm the path (worker start, first spawn) so the measured call is a steady-state call.
      await call("bash", { command: "true" }, "warm");
      const startEpoch = epochMs();
      const t = performance.now();
      const record = await call("bash", args, "bench");
      const ms = performance.now() - t;
      const endEpoch = epochMs();
      return {
        ms,
        startEpoch,
        endEpoch,
        mode,
        isError: record.result.isError,
        modelBytes: new TextEncoder().encode(JSON.stringify(record.result.content)).length,
        contentTail: text(record.result.content).slice(-400),
        details: record.result.details ?? null,
      };
    });
  },

  /**
   * Measure 5: one grep-tool call over a tree, in a Worker started as the tool host starts its
   * Worker (the default grants' permissions, the file operations of the sandbox `mode`: "bwrap"
   * opens confined, "off" re-checks every open), with limits raised so every match is listed;
   * returns `path:line` of each match.
   */
  async grep(params) {
    const { workerPermissions } = await import("../../src/sandbox/mod.ts");
    const { defaultGrants } = await import("../../src/policy/grants.ts");
    const { createDenoPathOps } = await import("../../src/sys/paths.ts");
    const cwd = str(params, "cwd");
    const mode = str(params, "mode");
    const grants = defaultGrants(cwd, { paths: createDenoPathOps() });
    const { createHelperHost, isHelperRequest } = await import("../../src/sandbox/host/helpers.ts");
    const permissions = workerPermissions(grants, { spillDir: str(params, "spillDir") });
    const guard = {
      denyRead: [],
      denyWrite: [],
      deniedIds: { read: [], write: [] },
      recheckOpens: mode === "off",
    };
    const worker = new Worker(new URL("./grep_worker.ts", import.meta.url), {
      type: "module",
      deno: { permissions },
    });
    // This thread is the Worker's parent, as the tool host's main thread is: it starts the
    // helper Workers the same way.
    const helpers = createHelperHost(permissions, guard);
    const request: GrepWorkerRequest = {
      cwd,
      guard,
      ...(params.threads === undefined ? {} : { threads: num(params, "threads") }),
      args: {
        pattern: str(params, "pattern"),
        literal: params.literal === true,
        limit: 100_000_000,
      },
    };
    const reply = await new Promise<GrepWorkerReply>((resolve, reject) => {
      worker.onmessage = (e) => {
        if (isHelperRequest(e.data)) helpers.handle(e.data);
        else resolve(e.data as GrepWorkerReply);
      };
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(`grep worker failed: ${e.message}`));
      };
      worker.postMessage(request);
    }).finally(() => {
      worker.terminate();
      helpers.closeAll();
    });
    if (reply.isError) throw new Error(`grep failed: ${reply.output}`);
    const matches: string[] = [];
    for (const line of reply.output.split("\n")) {
      const m = line.match(/^(.+?):(\d+): /);
      if (m) matches.push(`${m[1]}:${m[2]}`);
    }
    return { ms: reply.ms, matches, details: reply.details };
  },
};

const NO_CTX: ToolContext = { toolCallId: "bench", onUpdate: () => {} };

const WaitParams = Type.Object({
  ms: Type.Integer({ minimum: 0, description: "How long to wait, in milliseconds" }),
});

/**
 * The workload of measure 6: a concurrency-safe tool whose duration the call chooses (the built-in
 * concurrency-safe tools take about a millisecond, too little to tell parallel from sequential).
 */
function waitTool(): Tool<typeof WaitParams> {
  return {
    name: "wait",
    description: "Waits for the given number of milliseconds.",
    parameters: WaitParams,
    kind: "read",
    concurrencySafe: true,
    execute(args: Static<typeof WaitParams>, signal: AbortSignal) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ output: `waited ${args.ms} ms` }), args.ms);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve({ output: "aborted", isError: true });
        }, { once: true });
      });
    },
  };
}

function text(content: ContentBlock[] | string): string {
  if (typeof content === "string") return content;
  return content.map((b) => (b.type === "text" ? b.text : `[${b.mimeType} image]`)).join("\n");
}

/** Sends one tool call through the pipeline (prepare + execute); a refused call throws. */
type PipelineCall = (
  name: string,
  args: Record<string, unknown>,
  id: string,
) => Promise<CallRecord>;

/**
 * Runs `fn` with the sandbox of the job's `cwd`/`spillDir` params (policy + worker/tool-host hop)
 * and a function that sends calls through the agent's pipeline; closes the sandbox afterwards.
 */
async function withPipeline<T>(
  params: Record<string, unknown>,
  fn: (call: PipelineCall, mode: string) => Promise<T>,
): Promise<T> {
  const { executePreparedCall, prepareToolCall, buildToolMap } = await import(
    "../../src/agent/mod.ts"
  );
  const { createSandbox } = await import("../../src/sandbox/mod.ts");
  const { createDenoSandboxSys } = await import("../../src/sys/sandbox.ts");
  const { defaultGrants } = await import("../../src/policy/grants.ts");
  const { createDenoPathOps } = await import("../../src/sys/paths.ts");
  const cwd = str(params, "cwd");
  const spillDir = str(params, "spillDir");
  await Deno.mkdir(spillDir, { recursive: true });
  const sandbox = await createSandbox({
    cwd,
    grants: defaultGrants(cwd, { paths: createDenoPathOps() }),
    spillDir,
    env: Deno.env.toObject(),
    secretEnvNames: ["OPENAI_API_KEY"],
    noPrompt: true,
    // The tool host re-executes moat's entry point (this process's main module is the bench).
    hostScript: fileURLToPath(new URL("../../main.ts", import.meta.url)),
    sys: createDenoSandboxSys(),
  });
  try {
    const ctx: PipelineContext = {
      tools: buildToolMap(sandbox.tools),
      signal: new AbortController().signal,
      maxResultChars: 50_000,
      onToolCall: sandbox.onToolCall,
    };
    return await fn(async (name, args, id) => {
      const prepared = await prepareToolCall({ type: "toolCall", id, name, arguments: args }, ctx);
      if (prepared.kind !== "ready") {
        throw new Error(`${name} refused: ${text(prepared.record.result.content)}`);
      }
      return await executePreparedCall(prepared, ctx, () => {});
    }, sandbox.mode);
  } finally {
    await sandbox.close();
  }
}
