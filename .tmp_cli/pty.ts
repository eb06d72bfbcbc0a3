import { reply, startFakeOpenAI } from "../tests/support/fake_openai.ts";
import { cliEnv, startArgv } from "../tests/e2e/_cli.ts";
import { startPty } from "../tests/e2e/_pty.ts";
import { createTempWorkspace } from "../tests/support/workspace.ts";
await using server = await startFakeOpenAI();
await using ws = await createTempWorkspace({ "README.md": "# Demo\n" });
await using home = await createTempWorkspace();
server.script(reply.text("Hi there, human."), reply.toolCalls([{ id: "c1", name: "bash", arguments: { command: "sleep 300.999" } }]), reply.text("Second answer."));
const pty = startPty([Deno.execPath(), ...(await startArgv([]))], { cwd: ws.dir, env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }) });
try {
await pty.waitFor(/› /);
let mark = pty.output.length;
await pty.type("hello\r");
await pty.waitFor(/Hi there, human\.[\s\S]*› /, { from: mark });
mark = pty.output.length;
await pty.type("sleep please\r");
await pty.waitFor(/bash sleep/, { from: mark });
await new Promise((r) => setTimeout(r, 1000));
await pty.type("\x03");
await pty.waitFor(/aborted[\s\S]*› /, { from: mark });
mark = pty.output.length;
await pty.type("second question\r");
await pty.waitFor(/Second answer\.[\s\S]*› /, { from: mark });
await pty.type("/exit\r");
console.log("exit", await pty.exited());
} finally {
console.log(JSON.stringify(pty.output));
}
