/** The real effects behind CliDeps: the OpenAI adapter, the sandbox and the tool host entry. */
import { createOpenAiClient } from "../model/openai.ts";
import { UsageError } from "../policy/grants.ts";
import { createSandbox, runToolHost, type SandboxOptions } from "../sandbox/mod.ts";
import { createDenoToolHostIo } from "../sys/terminal.ts";
import type { CliFs } from "./io.ts";
import type { CliDeps, SandboxRequest, SandboxResult } from "./run.ts";

/** Creates the production dependencies of runCli. */
export function createDefaultDeps(fs: CliFs): CliDeps {
  return {
    createModel: (options) => createOpenAiClient(options),
    runToolHost: (argv, io) => runToolHost(argv, io),
    toolHostIo: () => createDenoToolHostIo(),
    async openSandbox(request: SandboxRequest): Promise<SandboxResult> {
      // bash spills full outputs here; it lives as long as the run and is removed on close.
      const spillDir = await fs.makeTempDir("moat-run-");
      // createSandbox brings its own Deno effects (src/sys) unless a test injects others.
      const options: SandboxOptions = { ...request, spillDir };
      try {
        const sandbox = await createSandbox(options);
        let closing: Promise<void> | undefined;
        return {
          ok: true,
          sandbox: {
            tools: sandbox.tools,
            onToolCall: sandbox.onToolCall,
            mode: sandbox.mode,
            warnings: sandbox.warnings,
            get grants() {
              return sandbox.grants;
            },
            close() {
              closing ??= sandbox.close().catch(() => {}).then(() => fs.removeTree(spillDir));
              return closing;
            },
          },
        };
      } catch (e) {
        await fs.removeTree(spillDir);
        if (e instanceof UsageError) return { ok: false, error: e.message };
        throw e;
      }
    },
  };
}
