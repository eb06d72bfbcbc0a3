import { defaultGrants } from "./src/policy/grants.ts";
import { callTool, createLayout, openSandbox, SECRET, textOf } from "./tests/sandbox/_helpers.ts";
const layout = await createLayout({ "sub/secret.txt": "benign\n" });
await Deno.writeTextFile(`${layout.outside}/secret.txt`, `${SECRET}\n`);
const sb = await openSandbox(layout, (Deno.args[0] ?? "worker") as "worker", defaultGrants(layout.ws));
await Deno.rename(`${layout.ws}/sub`, `${layout.ws}/real`);
await Deno.symlink("real", `${layout.ws}/a`);
await Deno.symlink(layout.outside, `${layout.ws}/b`);
await Deno.symlink("real", `${layout.ws}/sub`);
// sub is itself a symlink then? No: make sub a real dir vs symlink alternately via python rename of prepared entries
await Deno.remove(`${layout.ws}/sub`);
await Deno.rename(`${layout.ws}/real`, `${layout.ws}/sub`);
await Deno.remove(`${layout.ws}/a`);
const py = new Deno.Command("python3", { args: ["-c", `
import os,time
ws=${JSON.stringify(layout.ws)}
end=time.time()+8
n=0
while time.time()<end:
    os.rename(ws+'/sub', ws+'/real'); os.rename(ws+'/b', ws+'/sub')
    os.rename(ws+'/sub', ws+'/b'); os.rename(ws+'/real', ws+'/sub'); n+=1
print(n)
`], stdout: "piped" }).spawn();
let leaks = 0, benign = 0, n = 0;
const t = Date.now();
while (Date.now() - t < 7000) {
  const outs = await Promise.all(Array.from({ length: 10 }, () => callTool(sb, "read", { path: "sub/secret.txt" }, { policy: false })));
  for (const o of outs) { n++; const s = textOf(o); if (s.includes(SECRET)) leaks++; if (s.includes("benign")) benign++; }
}
console.log(new TextDecoder().decode((await py.output()).stdout).trim(), { n, leaks, benign });
await sb.close(); await layout.root[Symbol.asyncDispose]();
