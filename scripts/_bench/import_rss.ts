/**
 * A child of measure 12: imports the modules named in its arguments (comma-separated specifiers,
 * `src/…` relative to the checkout) and prints the process's peak RSS (VmHWM) in kB afterwards,
 * the milliseconds the imports took and its file-backed RSS (RssFile: pages of the deno executable
 * and libraries) in kB: `<kB> <ms> <file kB>`.
 */
const ROOT = new URL("../..", import.meta.url);
const specs = (Deno.args[0] ?? "").split(",").filter((s) => s !== "");
const started = performance.now();
for (const spec of specs) await import(spec.startsWith("src/") ? new URL(spec, ROOT).href : spec);
const ms = performance.now() - started;
const status = Deno.readTextFileSync("/proc/self/status");
const kb = /VmHWM:\s+(\d+)/.exec(status)?.[1] ?? "0";
const fileKb = /RssFile:\s+(\d+)/.exec(status)?.[1] ?? "0";
Deno.stdout.writeSync(new TextEncoder().encode(`${kb} ${ms.toFixed(1)} ${fileKb}\n`));
