/** The real effects behind CliDeps: the OpenAI adapter, the sandbox and MCP servers' processes. */
import { createOpenAiClient } from "../model/openai/mod.ts";
import { UsageError } from "../policy/grants.ts";
import { createSandbox, type SandboxOptions } from "../sandbox/mod.ts";
import { createDenoSandboxSys } from "../sys/sandbox.ts";
import { createDenoMcpProcessOps } from "../sys/mcp.ts";
import { startRunDirReaper } from "../sys/run_dir.ts";
import { createDenoHookProcessOps } from "../sys/hook_process.ts";
import { createHookCommandRunner } from "../hooks/confined_runner.ts";
import { createDenoGitOps } from "../sys/git.ts";
import { createDenoRewindFs } from "../sys/rewind_fs.ts";
import type { CliFs } from "./io.ts";
import type { CliDeps, SandboxRequest, SandboxResult } from "./setup.ts";

/**
 * Creates the production dependencies of runCli; `moduleRoot` is where moat's Worker modules are
 * (main.ts's directory as a URL; default: this checkout).
 */
export function createDefaultDeps(fs: CliFs, options: { moduleRoot?: string } = {}): CliDeps {
  return {
    createModel: (options) => createOpenAiClient(options),
    createMcpProcessOps: () => createDenoMcpProcessOps(),
    rewind: { git: createDenoGitOps(), fs: createDenoRewindFs() },
    // Hook commands run in bash's view (bubblewrap) with the tools' allow-listed environment.
    createHookRunner: (sandbox, env) =>
      createHookCommandRunner({
        confine: (spec) => sandbox.confine?.(spec),
        toolEnv: () => ({ ...sandbox.toolEnv?.(), ...env }),
        process: createDenoHookProcessOps(),
      }),
    async openSandbox(request: SandboxRequest): Promise<SandboxResult> {
      // bash spills full outputs here; it lives as long as the run and is removed on close.
      const spillDir = await fs.makeTempDir("moat-run-");
      // Removes it also when moat is killed before close().
      const reaper = startRunDirReaper(spillDir);
      const removeSpill = () => fs.removeTree(spillDir).then(() => reaper?.close());
      const sandboxOptions: SandboxOptions = {
        ...request,
        spillDir,
        sys: createDenoSandboxSys(options.moduleRoot),
      };
      try {
        const sandbox = await createSandbox(sandboxOptions);
        let closing: Promise<void> | undefined;
        return {
          ok: true,
          sandbox: {
            tools: sandbox.tools,
            onToolCall: sandbox.onToolCall,
            mode: sandbox.mode,
            warnings: sandbox.warnings,
            confine: (spec) => sandbox.confine(spec),
            toolEnv: () => sandbox.toolEnv(),
            stopJobs: () => sandbox.stopJobs(),
            listJobs: () => sandbox.listJobs(),
            get grants() {
              return sandbox.grants;
            },
            close() {
              closing ??= sandbox.close().catch(() => {}).then(removeSpill);
              return closing;
            },
          },
        };
      } catch (e) {
        await removeSpill();
        if (e instanceof UsageError) return { ok: false, error: e.message };
        throw e;
      }
    },
  };
}
