/**
 * The tour's scripted model side: one reply per step, then the answer. `deno task record-tour`
 * records it as examples/tour.jsonl, `deno task record-cast` plays it in a terminal.
 */
import type { FakeToolCall, Step } from "../tests/support/fake_openai.ts";
import { reply } from "../tests/support/fake_openai.ts";

/** The prompt the tour answers. */
export const TOUR_PROMPT = "Show me around this repository, then try to reach outside it.";

const call = (name: string, args: Record<string, unknown>): FakeToolCall => ({
  name,
  arguments: args,
});

/** The scripted model: one reply per step of the tour, then the answer. */
export function tourSteps(): Step[] {
  return [
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
      text:
        "The built-in tools are listed in src/tools/registry.ts. A harmless shell command next:",
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
}
