import { defaultGrants } from "./src/policy/grants.ts";
import { callTool, createLayout, openSandbox, SECRET, textOf } from "./tests/sandbox/_helpers.ts";
const layout = await createLayout({ "sub/secret.txt": "benign\n" });
const sb = await openSandbox(layout, (Deno.args[0] ?? "worker") as "worker", defaultGrants(layout.ws));
const sub = `${layout.ws}/sub`;
let stop = false, flips = 0;
const flipper = (async () => {
  while (!stop) {
    await Deno.rename(sub, `${layout.ws}/sub.real`);
    await Deno.symlink(layout.outside, sub);
    await new Promise((r) => setTimeout(r, 0));
    await Deno.remove(sub);
    await Deno.rename(`${layout.ws}/sub.real`, sub);
    flips++;
    await new Promise((r) => setTimeout(r, 0));
  }
})();
let leaks = 0, benign = 0;
for (let round = 0; round < 30; round++) {
  const outs = await Promise.all(Array.from({ length: 10 }, (_, i) =>
    callTool(sb, i % 2 ? "read" : "grep", i % 2 ? { path: "sub/secret.txt" } : { pattern: "TOP|benign" }, { policy: false })));
  for (const o of outs) { const t = textOf(o); if (t.includes(SECRET)) leaks++; if (t.includes("benign")) benign++; }
}
stop = true; await flipper; await sb.close(); await layout.root[Symbol.asyncDispose]();
console.log({ flips, leaks, benign });
