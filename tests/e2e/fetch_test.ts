/**
 * End-to-end: the fetch tool through the real CLI. A page on a host --allow-net grants comes back
 * as markdown; a redirect to a host it does not grant is refused, naming the flag, and the refusal
 * is a `permission` event of that call in `--output jsonl`.
 */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { assertOneNetRefusal, cliEnv, runMoat } from "./_cli.ts";
import { webServer } from "../support/web_server.ts";

Deno.test("fetch reads a granted page as markdown and a redirect to an ungranted host is a denial event", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  await using other = webServer("OTHER-E2E");
  const site = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) =>
      new URL(request.url).pathname === "/hop"
        ? new Response(null, {
          status: 302,
          headers: { location: `http://127.0.0.1:${other.port}/` },
        })
        : new Response(
          "<html><head><script>hidden()</script></head><body><h1>Fetched E2E</h1></body></html>",
          { headers: { "content-type": "text/html" } },
        ),
  );
  await using _site = { [Symbol.asyncDispose]: () => site.shutdown() };
  const port = site.addr.port;
  server.script(
    reply.toolCalls([
      { id: "c1", name: "fetch", arguments: { url: `http://127.0.0.1:${port}/page` } },
      { id: "c2", name: "fetch", arguments: { url: `http://127.0.0.1:${port}/hop` } },
    ]),
    reply.text("done"),
  );
  const result = await runMoat([`--allow-net=127.0.0.1:${port}`, "--output", "jsonl", "go"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 0, result.stderr);
  const results = server.chatRequests[1]?.body?.messages.filter((m) => m.role === "tool") ?? [];
  assert.match(String(results[0]?.content), /# Fetched E2E/);
  assert.doesNotMatch(String(results[0]?.content), /hidden/);
  const flag = `--allow-net=127.0.0.1:${port},127.0.0.1:${other.port}`;
  assert.match(String(results[1]?.content), new RegExp(`Redirect refused: .*\\(add ${flag}\\)`));
  assertOneNetRefusal(result.stdout, {
    toolCallId: "c2",
    toolName: "fetch",
    target: `127.0.0.1:${other.port}`,
    hint: flag,
  });
});
