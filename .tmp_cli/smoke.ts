import { reply, startFakeOpenAI } from "../tests/support/fake_openai.ts";
import { cliEnv, runMoat } from "../tests/e2e/_cli.ts";
import { createTempWorkspace } from "../tests/support/workspace.ts";
await using server = await startFakeOpenAI();
await using ws = await createTempWorkspace({ "README.md": "# Demo\nThe answer is 42.\n" });
await using home = await createTempWorkspace();
server.script(
  reply.toolCalls([{ id: "call_1", name: "read", arguments: { path: "README.md" } }]),
  reply.text("The README says the answer is 42."),
);
const args = Deno.args.length ? Deno.args : ["summarise README.md"];
const r = await runMoat(args, { cwd: ws.dir, env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }) });
console.log(r);
console.log(server.requests.length);
