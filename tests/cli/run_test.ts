import assert from "node:assert/strict";
import type { CliDeps, SandboxHandle, SandboxRequest } from "../../src/cli/run.ts";
import { noEndpointMessage, runCli } from "../../src/cli/run.ts";
import type { AssistantMessage, ModelClient } from "../../src/model/types.ts";
import { emptyUsage } from "../../src/model/types.ts";
import type { OpenAiClientOptions } from "../../src/model/openai.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { createFakeTerminal } from "./_fakes.ts";

function textReply(text: string): AssistantMessage {
  return {
    role: "assistant",
    blocks: [{ type: "text", text }],
    stopReason: "stop",
    usage: emptyUsage(),
  };
}

function fakeDeps(model: ModelClient, over: Partial<CliDeps> = {}) {
  const calls = { sandboxes: [] as SandboxRequest[], closed: 0, models: 0 };
  const deps: CliDeps = {
    createModel: () => {
      calls.models++;
      return model;
    },
    openSandbox: (request) => {
      calls.sandboxes.push(request);
      const sandbox: SandboxHandle = {
        tools: [],
        onToolCall: () => undefined,
        mode: "worker",
        warnings: [],
        grants: request.grants,
        close: () => {
          calls.closed++;
          return Promise.resolve();
        },
      };
      return Promise.resolve({ ok: true, sandbox });
    },
    runToolHost: () => Promise.resolve(0),
    toolHostIo: () => {
      throw new Error("not used");
    },
    ...over,
  };
  return { deps, calls };
}

Deno.test("runCli() rejects a bad flag with exit 2 before creating a model or a sandbox", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps, calls } = fakeDeps({ stream: () => Promise.resolve(textReply("x")) });
  const code = await runCli(["--max-turns", "many", "hi"], {
    env: { OPENAI_API_KEY: "k", HOME: ws.dir },
    cwd: ws.dir,
    terminal,
    deps,
  });
  assert.equal(code, 2);
  assert.match(terminal.stderr, /--max-turns/);
  assert.equal(calls.models + calls.sandboxes.length, 0);
});

Deno.test("runCli() without key or base URL prints the endpoint paragraph and exits 2", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps } = fakeDeps({ stream: () => Promise.resolve(textReply("x")) });
  const code = await runCli(["hi"], { env: { HOME: ws.dir }, cwd: ws.dir, terminal, deps });
  assert.equal(code, 2);
  assert.equal(terminal.stderr, noEndpointMessage("OPENAI_API_KEY"));
});

Deno.test("runCli() accepts a base URL without a key (local servers) and answers in print mode", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps, calls } = fakeDeps({ stream: () => Promise.resolve(textReply("Local answer.")) });
  const code = await runCli(["--no-session", "hi"], {
    env: { HOME: ws.dir, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
    cwd: ws.dir,
    terminal,
    deps,
  });
  assert.equal(code, 0, terminal.stderr);
  assert.equal(terminal.stdout, "Local answer.\n");
  assert.equal(calls.closed, 1);
  // Print mode never asks: no prompter goes to the sandbox.
  assert.equal(calls.sandboxes[0]?.prompter, undefined);
  assert.equal(calls.sandboxes[0]?.noPrompt, true);
  assert.ok(calls.sandboxes[0]?.secretEnvNames.includes("OPENAI_API_KEY"));
});

Deno.test("runCli() exits 2 with the cause when the sandbox cannot be opened", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps } = fakeDeps({ stream: () => Promise.resolve(textReply("x")) }, {
    openSandbox: () =>
      Promise.resolve({
        ok: false,
        error: "--sandbox=require, but the OS sandbox cannot be used: bwrap not found",
      }),
  });
  const code = await runCli(["--sandbox=require", "--no-session", "hi"], {
    env: { HOME: ws.dir, OPENAI_API_KEY: "k" },
    cwd: ws.dir,
    terminal,
    deps,
  });
  assert.equal(code, 2);
  assert.match(terminal.stderr, /bwrap not found/);
});

Deno.test("runCli() turns SIGINT during a run into exit 130 after closing the sandbox", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  let started: () => void = () => {};
  const streaming = new Promise<void>((resolve) => started = resolve);
  const model: ModelClient = {
    stream: (_request, options) =>
      new Promise((resolve) => {
        started();
        options.signal?.addEventListener("abort", () => resolve(null), { once: true });
      }),
  };
  const { deps, calls } = fakeDeps(model);
  const run = runCli(["hi"], {
    env: { HOME: ws.dir, XDG_STATE_HOME: ws.path("state"), OPENAI_API_KEY: "k" },
    cwd: ws.dir,
    terminal,
    deps,
    fs: createDenoCliFs(),
  });
  await streaming;
  terminal.raise("SIGINT");
  assert.equal(await run, 130);
  assert.equal(calls.closed, 1);
  assert.match(terminal.stderr, /interrupted/);
  // The prompt was saved before the interrupt.
  const dirs = [];
  for await (const d of Deno.readDir(ws.path("state/moat/sessions"))) dirs.push(d.name);
  assert.equal(dirs.length, 1);
});

Deno.test("runCli() dispatches the hidden __tool-host sub-command", async () => {
  let seen: string[] = [];
  const code = await runCli(["__tool-host", "x"], {
    env: {},
    cwd: "/",
    deps: {
      runToolHost: (argv) => {
        seen = argv;
        return Promise.resolve(7);
      },
      toolHostIo: () => ({ stdin: new ReadableStream(), stdout: new WritableStream() }),
    },
  });
  assert.equal(code, 7);
  assert.deepEqual(seen, ["x"]);
});

Deno.test("runCli() passes the config's compatibility switches to the model client", async () => {
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({
      compat: { streamOptions: false, maxTokensField: "max_tokens", vision: false },
    }),
  });
  const terminal = createFakeTerminal();
  const seen: OpenAiClientOptions[] = [];
  const { deps } = fakeDeps({ stream: () => Promise.resolve(textReply("ok")) }, {
    createModel: (options) => {
      seen.push(options);
      return { stream: () => Promise.resolve(textReply("ok")) };
    },
  });
  const code = await runCli(["--no-session", "hi"], {
    env: { HOME: ws.dir, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
    cwd: ws.dir,
    terminal,
    deps,
  });
  assert.equal(code, 0, terminal.stderr);
  assert.equal(seen[0]?.streamOptions, false);
  assert.equal(seen[0]?.maxTokensField, "max_tokens");
  assert.equal(seen[0]?.vision, false);
  assert.equal(seen[0]?.parallelToolCalls, undefined);
});
