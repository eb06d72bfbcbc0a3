/** A HookCommandRunner whose answers the test gives, recording what each hook was sent. */
import type { HookCommandRunner, HookCommandSpec, HookRunResult } from "../../src/hooks/runner.ts";

/** One call of the fake runner. */
export interface FakeRun {
  spec: HookCommandSpec;
  input: Record<string, unknown>;
  cwd: string;
}

/** A fake runner: `answer` maps a command to its result (exit 0, no output by default). */
export function fakeRunner(
  answer: (command: string, input: Record<string, unknown>) => Partial<HookRunResult> | Error =
    () => ({}),
): HookCommandRunner & { runs: FakeRun[] } {
  const runs: FakeRun[] = [];
  return {
    runs,
    run(spec, stdin, options) {
      const input = JSON.parse(stdin) as Record<string, unknown>;
      runs.push({ spec, input, cwd: options.cwd });
      const given = answer(spec.command, input);
      if (given instanceof Error) return Promise.reject(given);
      return Promise.resolve({
        exitCode: 0,
        stdout: "",
        stderr: "",
        timedOut: false,
        durationMs: 1,
        ...given,
      });
    },
  };
}
