/** End-to-end: a dev server in a background job answers a later call, and ends with the run. */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, processesMatching, runMoat, toolResultOf } from "./_cli.ts";

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("print mode: a server started with background: true answers curl, then is stopped at the end", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  await Deno.writeTextFile(ws.path("index.html"), "served by the job\n");
  const port = freePort();
  const command = `python3 -u -m http.server ${port} --bind 127.0.0.1`;
  server.script(
    reply.toolCalls([{ id: "call_start", name: "bash", arguments: { command, background: true } }]),
    reply.toolCalls([{
      id: "call_wait",
      name: "job",
      arguments: { action: "wait", id: "1", pattern: "Serving HTTP", timeout: 20 },
    }]),
    reply.toolCalls([{
      id: "call_curl",
      name: "bash",
      arguments: { command: `curl -s --noproxy 127.0.0.1 http://127.0.0.1:${port}/index.html` },
    }]),
    reply.text("done"),
  );
  const out = await runMoat(["--allow-run", "serve and fetch"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  assert.equal(out.code, 0, out.stderr);
  // The "Serving HTTP" line came among the start's first lines: the wait still sees it.
  assert.match(toolResultOf(server, "call_wait"), /matched/);
  assert.match(toolResultOf(server, "call_start"), /Started job "1" in the background/);
  assert.equal(toolResultOf(server, "call_curl"), "served by the job");
  assert.match(
    out.stderr,
    new RegExp(`Stopped background job "1" \\(\`${command}\`\\) at the end of the run`),
  );
  assert.deepEqual(await processesMatching(`http.server ${port}`), [], "nothing outlives moat");
});
