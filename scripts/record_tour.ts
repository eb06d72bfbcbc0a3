/**
 * Records examples/tour.jsonl: `deno task record-tour`. The tour's model side is scripted (no model
 * API is needed) and served by the in-repo fake OpenAI server; everything else is a real moat run
 * in this repository with the default grants, so the recorded tool results and denials are real.
 * Run it again whenever the files the tour reads change (the tour's replay check then says so).
 */
import { join } from "node:path";
import { type FakeToolCall, reply, startFakeOpenAI } from "../tests/support/fake_openai.ts";
import { cliEnv, PROJECT_ROOT, startArgv } from "../tests/e2e/_cli.ts";

const target = join(PROJECT_ROOT, "examples", "tour.jsonl");

const call = (name: string, args: Record<string, unknown>): FakeToolCall => ({
  name,
  arguments: args,
});

/** The scripted model: one reply per step of the tour, then the answer. */
const steps = [
  reply.toolCalls([call("read", { path: "README.md", limit: 13 })], {
    text: "Let me start with the README to see what this project is.",
  }),
  reply.toolCalls([call("ls", { path: "src" })], {
    text:
      "moat is a coding agent whose tools can touch only what you granted. Now the source tree.",
  }),
  reply.toolCalls(
    // One line in one small file: the tour stays valid while the tools' code changes.
    [call("grep", { pattern: "^export const BUILTIN_TOOL_NAMES", path: "src/tools" })],
    {
      text: "Each directory is one layer. Let me find where the built-in tools are defined.",
    },
  ),
  reply.toolCalls([call("bash", { command: 'ls examples && echo "6 x 7 = $((6 * 7))"' })], {
    text: "The built-in tools are listed in src/tools/registry.ts. A harmless shell command next:",
  }),
  reply.toolCalls([
    call("read", { path: "~/.ssh/config" }),
    call("write", { path: "/tmp/moat-tour.txt", content: "written by the moat tour\n" }),
  ], {
    text:
      "Finally, let me try to step outside the workspace: read your SSH config and write to /tmp.",
  }),
  reply.text(
    [
      "Here is the tour:",
      "",
      "- **README.md** starts with the commands: run the agent with a model (or replay this tour",
      "  without one), and run the tests.",
      "- **src/** has one directory per layer: `agent` (the loop and tool pipeline), `cli`, `model`,",
      "  `policy` (grants and permission checks), `sandbox` (the bubblewrap tool host), `session`,",
      "  `sys` and `tools`.",
      "- **src/tools/registry.ts** names the built-in tools: read, bash, edit, write, grep, find",
      "  and ls, each made by a `create…Tool` factory in its own file.",
      "- **bash** ran `ls examples` and some shell arithmetic inside the sandbox.",
      "",
      "The last two calls were denied without asking you anything: `~/.ssh/config` and",
      "`/tmp/moat-tour.txt` are outside the workspace, and by default moat's tools can read and",
      "write only the workspace. Each denial names the flag that would allow it (such as",
      "`--allow-read=…`), so you can grant exactly what a task needs.",
      "",
      "To work with a real model, set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server) and run",
      '`npx -y deno@2.9.6 task -q start -- "your request"`.',
    ].join("\n"),
  ),
];

const server = await startFakeOpenAI();
// Recorded outside the repository, so the tour's own listing never shows a half-written file.
const dir = await Deno.makeTempDir({ prefix: "moat-tour-" });
try {
  server.script(...steps);
  const partial = join(dir, "tour.jsonl");
  const child = new Deno.Command(Deno.execPath(), {
    // Exactly as `deno task start` runs moat, as the e2e tests do.
    args: await startArgv([
      "--base-url",
      server.baseURL,
      "--model",
      "tour-script",
      "--session",
      partial,
      "--no-context-files",
      "Show me around this repository, then try to reach outside it.",
    ]),
    cwd: PROJECT_ROOT,
    // A clean environment with a throwaway HOME: no model settings, config or home path of
    // whoever records it end up in the recording.
    env: cliEnv(dir, { OPENAI_API_KEY: "not-needed" }),
    clearEnv: true,
    stdin: "null",
  });
  const status = await child.output();
  await Deno.stdout.write(status.stdout);
  await Deno.stderr.write(status.stderr);
  if (!status.success) throw new Error(`The recording run exited with code ${status.code}`);
  await Deno.copyFile(partial, target);
  await Deno.stderr.write(new TextEncoder().encode(`Recorded ${target}\n`));
} finally {
  await Deno.remove(dir, { recursive: true });
  await server.close();
}
