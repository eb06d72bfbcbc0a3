/**
 * A child of measure 12: imports the modules named in its arguments (comma-separated specifiers,
 * `src/…` relative to the checkout) and prints the process's peak RSS (VmHWM) in kB afterwards.
 */
const ROOT = new URL("../..", import.meta.url);
const specs = (Deno.args[0] ?? "").split(",").filter((s) => s !== "");
for (const spec of specs) await import(spec.startsWith("src/") ? new URL(spec, ROOT).href : spec);
const status = Deno.readTextFileSync("/proc/self/status");
Deno.stdout.writeSync(new TextEncoder().encode(`${/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? "0"}\n`));
