// Scratch driver (delete after review): runs the real CLI against the fake OpenAI server.
// usage: deno run -A _scratch_sandbox.ts WORKSPACE STEPS_JSON [--signal SIG@MS] -- MOAT_ARGS…
// STEPS_JSON: [[{"name":"read","arguments":{...}}, …], …] one batch per model turn.
import { reply, startFakeOpenAI } from "./tests/support/fake_openai.ts";

const dd = Deno.args.indexOf("--");
const [ws, stepsJson, ...rest] = Deno.args.slice(0, dd);
const moatArgs = Deno.args.slice(dd + 1);
let signal: [Deno.Signal, number] | undefined;
if (rest[0] === "--signal") {
  const [s, ms] = rest[1]!.split("@");
  signal = [s as Deno.Signal, Number(ms)];
}
const batches = JSON.parse(stepsJson!) as Array<Array<{ name: string; arguments: unknown }>>;
await using server = await startFakeOpenAI();
let n = 0;
server.script(
  ...batches.map((b) =>
    reply.toolCalls(b.map((c) => ({ name: c.name, arguments: c.arguments as Record<string, unknown>, id: `c${++n}` })))
  ),
  reply.text("done"),
);
const env: Record<string, string> = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME: Deno.env.get("SCRATCH_HOME") ?? "/root",
  OPENAI_API_KEY: "sk-SECRET-KEY-123",
  OPENAI_BASE_URL: server.baseURL,
  MOAT_MODEL: "fake-model",
  LANG: "C.UTF-8",
  FOO: "foo-visible",
  MY_TOKEN: "tok-SECRET-456",
  XDG_STATE_HOME: "/tmp/scratch-state",
  ...JSON.parse(Deno.env.get("SCRATCH_ENV") ?? "{}"),
};
const child = new Deno.Command(Deno.execPath(), {
  args: ["run", "--unstable-worker-options", "--allow-all", "--no-prompt", "/work/main/main.ts", ...moatArgs],
  cwd: ws,
  env,
  clearEnv: true,
  stdin: "null",
  stdout: "piped",
  stderr: "piped",
}).spawn();
const t0 = Date.now();
if (signal) {
  const [sig, ms] = signal;
  setTimeout(() => {
    // npx -> deno: signal the deno process (child of npx) or npx itself
    const target = child.pid;
    console.error(`[driver] sending ${sig} to ${target} at ${Date.now() - t0}ms`);
    Deno.kill(target, sig);
  }, ms);
}
const [status, out, err] = await Promise.all([
  child.status,
  new Response(child.stdout).text(),
  new Response(child.stderr).text(),
]);
console.log(`=== exit ${status.code} signal ${status.signal} (${Date.now() - t0} ms)`);
console.log(`=== stdout\n${out}`);
console.log(`=== stderr\n${err}`);
for (const [i, r] of server.chatRequests.entries()) {
  const msgs = (r.body as { messages: Array<{ role: string; content: unknown; tool_call_id?: string }> }).messages;
  for (const m of msgs.filter((m) => m.role === "tool")) {
    if (i === server.chatRequests.length - 1 || true) {
      // print only new tool messages of each request
    }
  }
}
const last = server.chatRequests.at(-1);
if (last) {
  const msgs = (last.body as { messages: Array<{ role: string; content: unknown; tool_call_id?: string }> }).messages;
  for (const m of msgs.filter((m) => m.role === "tool")) {
    console.log(`--- tool ${m.tool_call_id}:\n${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`);
  }
}
