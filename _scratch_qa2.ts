// Scratch QA driver (delete after use): deno run -A _scratch_qa2.ts OUTDIR SCENARIO
import { fault, repeat, reply, startFakeOpenAI, type Step } from "./tests/support/fake_openai.ts";

const [outDir, scenario] = Deno.args;
if (!outDir || !scenario) throw new Error("usage: OUTDIR SCENARIO");
const long = Array.from({ length: 400 }, (_, i) => `Line ${i} of a long answer.`).join("\n");
const S: Record<string, Step[]> = {
  lenText: [reply.text("This answer was cut in the mid", { finishReason: "length" })],
  lenTools: [
    reply.toolCalls([{ id: "c1", name: "write", arguments: '{"path":"a.txt","content":"hel' }], {
      finishReason: "length",
    }),
    reply.text("Sorry, done now."),
  ],
  badJson: [
    reply.toolCalls([{ id: "c1", name: "read", arguments: '{"path": "README.md"' }]),
    reply.text("ok after bad json"),
  ],
  argsObj: [
    reply.toolCalls([{ id: "c1", name: "read", arguments: { path: "README.md" }, argsAsObject: true }]),
    reply.text("ok after object args"),
  ],
  notOffered: [
    reply.toolCalls([{ id: "c1", name: "bash", arguments: { command: "echo hi" } }]),
    reply.text("ok after unknown tool"),
  ],
  repeat5: [
    repeat(reply.toolCalls([{ name: "read", arguments: { path: "README.md" } }]), 5),
    reply.text("done repeating"),
  ],
  rate: [fault.status(429, { retryAfter: 1 }), reply.text("after rate limit")],
  s500: [fault.status(500), fault.status(500), fault.status(500), fault.status(500)],
  disc: [fault.disconnect(reply.text("half a reply that is longer than two chunks"), { afterChunks: 3 })],
  discTools: [
    reply.toolCalls([{ id: "c1", name: "read", arguments: { path: "README.md" } }]),
    fault.disconnect(reply.text("half a reply that is longer than two chunks"), { afterChunks: 3 }),
    reply.text("continued fine"),
  ],
  slow: [reply.text("slow answer", { delayMs: 5000 })],
  overflow: [fault.contextOverflow()],
  s401: [fault.unauthorized()],
  textAndTools: [
    reply.toolCalls([{ id: "c1", name: "read", arguments: { path: "README.md" } }], {
      text: "Let me read the README first.",
    }),
    reply.text("Final answer: 42."),
  ],
  long: [reply.text(long, { chunks: 200 })],
  unicode: [
    reply.toolCalls([{ id: "c1", name: "write", arguments: { path: "ü/日本.txt", content: "héllo 🌍\n" } }]),
    reply.text("Wrote 日本.txt 🎉 — done ✓"),
  ],
  cont3: [
    reply.toolCalls([{ id: "r1", name: "read", arguments: { path: "README.md" } }]),
    reply.text("first answer"),
    reply.toolCalls([{ id: "r2", name: "ls", arguments: {} }]),
    reply.text("second answer"),
    reply.text("third answer"),
  ],
  one: [reply.text("one answer")],
  many: [repeat(reply.text("an answer"))],
  interactive: [
    reply.text("first reply", { delayMs: 3000 }),
    repeat(reply.text("another reply")),
  ],
  approve: [
    reply.toolCalls([{ id: "w1", name: "write", arguments: { path: "/tmp/qa2_out/x.txt", content: "1" } }]),
    reply.toolCalls([{ id: "w2", name: "write", arguments: { path: "/tmp/qa2_out/x.txt", content: "2" } }]),
    reply.text("wrote twice"),
    repeat(reply.text("more")),
  ],
  ctrlc: [
    reply.toolCalls([{ id: "b1", name: "bash", arguments: { command: "sleep 300" } }]),
    repeat(reply.text("after ctrl-c")),
  ],
};
const steps = S[scenario];
if (!steps) throw new Error(`unknown scenario ${scenario}`);
const server = await startFakeOpenAI();
server.script(...steps);
await Deno.writeTextFile(`${outDir}/url`, server.baseURL);
let seen = 0;
const timer = setInterval(() => {
  if (server.requests.length !== seen) {
    seen = server.requests.length;
    Deno.writeTextFileSync(
      `${outDir}/requests.json`,
      JSON.stringify(server.requests.map((r) => ({ path: r.path, headers: r.headers, body: r.body })), null, 1),
    );
  }
}, 50);
Deno.addSignalListener("SIGTERM", async () => {
  clearInterval(timer);
  await server.close();
  Deno.exit(0);
});
