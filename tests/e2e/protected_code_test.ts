/**
 * End-to-end: moat's own code — the deno executable, moat's checkout (the directory of the main
 * module) and Deno's cache, as the running CLI finds them — stays read-only under a write grant
 * that holds it (here all writes), for the write tool and for bash in bubblewrap, while the
 * workspace stays writable. The attempts are harmless should they succeed (`touch` of files
 * that exist; a probe file removed at the end).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { cliEnv, denoDir, PROJECT_ROOT, runMoat, toolResultOf } from "./_cli.ts";

Deno.test({
  name:
    "[bwrap] under --allow-write the deno executable, moat's checkout and Deno's cache stay read-only; the workspace does not",
  ignore: !BWRAP,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace({ "a.txt": "one\n" });
    await using home = await createTempWorkspace();
    const probe = join(PROJECT_ROOT, `zz-moat-code-probe-${crypto.randomUUID()}.txt`);
    const exec = Deno.realPathSync(Deno.execPath());
    const cache = Deno.realPathSync(denoDir());
    // Installed by npm (npx deno): its node_modules holds the launcher and the binary's hardlinks.
    const parts = exec.split("/");
    const modules = parts.includes("node_modules")
      ? parts.slice(0, parts.indexOf("node_modules") + 1).join("/")
      : undefined;
    const command = [
      `touch '${exec}'; echo "exec=$?"`,
      ...(modules === undefined ? [] : [`touch '${modules}/.bin'; echo "modules=$?"`]),
      `touch '${PROJECT_ROOT}/deno.json'; echo "checkout=$?"`,
      `touch '${cache}/npm'; echo "cache=$?"`,
      `touch ws.txt; echo "ws=$?"`,
    ].join("; ");
    server.script(
      reply.toolCalls([
        { id: "w1", name: "write", arguments: { path: probe, content: "x" } },
        { id: "b1", name: "bash", arguments: { command } },
      ]),
      reply.text("done"),
    );
    try {
      const result = await runMoat(["--allow-write", "-o", "json", "touch moat"], {
        cwd: ws.dir,
        env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        toolResultOf(server, "w1"),
        new RegExp(
          `"${PROJECT_ROOT}" is protected because it holds code moat runs outside the sandbox`,
        ),
      );
      const out = toolResultOf(server, "b1");
      for (const name of ["exec", "modules", "checkout", "cache"]) {
        assert.doesNotMatch(out, new RegExp(`${name}=0\\b`), out);
      }
      assert.match(out, /ws=0\b/, out);
      await assert.rejects(Deno.lstat(probe), Deno.errors.NotFound);
    } finally {
      await Deno.remove(probe).catch(() => {});
    }
  },
});
