import assert from "node:assert/strict";
import { configuredHooks, createHooks } from "../../src/hooks/mod.ts";
import type { HookRunResult } from "../../src/hooks/runner.ts";
import { endSession, type HookSession, preCompact } from "../../src/cli/hooks.ts";
import { fakeRunner } from "../hooks/_fake_runner.ts";

Deno.test("PreCompact hooks get the trigger, do not hold compaction up, and SessionEnd waits for them", async () => {
  const configured = configuredHooks({
    user: {
      PreCompact: [{ hooks: [{ type: "command", command: "snapshot" }] }],
      SessionEnd: [{ hooks: [{ type: "command", command: "bye" }] }],
    },
  });
  assert.ok(configured.ok);
  const held: Array<() => void> = [];
  const order: string[] = [];
  const runner = fakeRunner((command) => {
    order.push(command);
    return {};
  });
  const run = runner.run.bind(runner);
  // PreCompact hooks finish only when the test lets them.
  runner.run = (spec, stdin, options) =>
    spec.command === "snapshot"
      ? new Promise<HookRunResult>((resolve) =>
        held.push(() => void run(spec, stdin, options).then(resolve))
      )
      : run(spec, stdin, options);
  const hooks = createHooks({
    hooks: configured.hooks,
    runner,
    cwd: "/work/p",
    sessionId: () => "s1",
    report: () => {},
  });
  const session: HookSession = { id: "s1", path: null, started: true, pending: new Set() };

  preCompact(hooks, session, "threshold");
  preCompact(hooks, session, "manual");
  assert.equal(session.pending.size, 2, "compaction goes on while they run");
  const ending = endSession(hooks, session);
  // Every pending promise callback runs before a timer: nothing but the held hooks is left.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(order, [], "SessionEnd waits for the PreCompact hooks");
  for (const release of held) release();
  await ending;
  assert.deepEqual(runner.runs.map((r) => [r.spec.command, r.input.trigger]), [
    ["snapshot", "auto"],
    ["snapshot", "manual"],
    ["bye", undefined],
  ]);
  assert.equal(session.pending.size, 0);
});

Deno.test("without hooks, compaction and the session's end run nothing", async () => {
  const session: HookSession = { id: null, path: null, started: true, pending: new Set() };
  preCompact(undefined, session, "overflow");
  assert.equal(session.pending.size, 0);
  await endSession(undefined, session);
});
