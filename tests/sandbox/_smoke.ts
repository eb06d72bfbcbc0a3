import { createSandbox } from "/work/main/src/sandbox/mod.ts";
import { defaultGrants } from "/work/main/src/policy/grants.ts";
const ws = "/tmp/sbx-exp/ws";
await Deno.mkdir("/tmp/sbx-exp/spill", { recursive: true });
const t0 = performance.now();
const sb = await createSandbox({
  cwd: ws,
  grants: defaultGrants(ws),
  spillDir: "/tmp/sbx-exp/spill",
  env: Deno.env.toObject(),
  secretEnvNames: ["OPENAI_API_KEY"],
  hostScript: "/work/main/tests/sandbox/_host_entry.ts",
  sandbox: (Deno.args[0] ?? "auto") as "auto",
});
console.log("created", sb.mode, sb.warnings, performance.now() - t0);
const byName = new Map(sb.tools.map((t) => [t.name, t]));
const ctx = { toolCallId: "c1", onUpdate: () => {} };
const sig = new AbortController().signal;
for (
  const [name, args] of [["read", { path: "a.txt" }], ["read", { path: "link.txt" }], ["bash", {
    command: "echo hi; cat /tmp/sbx-exp/outside/s.txt; env | sort; ls /proc",
  }], ["ls", { path: "." }]] as const
) {
  const tool = byName.get(name)!;
  const block = await sb.onToolCall({ toolCallId: "c1", name, args, tool, signal: sig });
  const t = performance.now();
  const out = await tool.execute(args, sig, ctx);
  console.log(
    name,
    JSON.stringify(args),
    "block:",
    block?.reason,
    "=>",
    JSON.stringify(out.output).slice(0, 400),
    (performance.now() - t).toFixed(1),
  );
}
await sb.close();
console.log("closed");
