/** A tiny tool set for host lifecycle tests: echo (with progress), wait (until aborted), crash. */
import { Type } from "@sinclair/typebox";
import type { AnyTool } from "../../src/agent/tool.ts";

/** Builds the fake tools (the same definitions run in the main process and the Worker). */
export function fakeTools(): AnyTool[] {
  return [
    {
      name: "echo",
      description: "echoes text",
      parameters: Type.Object({ text: Type.String() }),
      kind: "read",
      execute: (args: { text: string }, _signal, ctx) => {
        ctx.onUpdate({ text: `working on ${args.text}` });
        return Promise.resolve({ output: `echo: ${args.text}`, details: { n: 1 } });
      },
    },
    {
      name: "wait",
      description: "waits until aborted",
      parameters: Type.Object({}),
      kind: "execute",
      execute: (_args, signal) =>
        new Promise((resolve) => {
          const done = () => resolve({ output: "wait aborted", isError: true });
          if (signal.aborted) done();
          else signal.addEventListener("abort", done, { once: true });
        }),
    },
    {
      name: "crash",
      description: "kills the Worker it runs in",
      parameters: Type.Object({}),
      kind: "execute",
      execute: () => {
        setTimeout(() => {
          throw new Error("boom");
        }, 0);
        return new Promise(() => {});
      },
    },
    {
      name: "throws",
      description: "throws inside execute",
      parameters: Type.Object({}),
      kind: "read",
      execute: () => Promise.reject(new Error("bad tool")),
    },
  ];
}
