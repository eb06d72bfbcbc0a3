import { startArgv } from "../tests/e2e/_cli.ts";
console.log(JSON.stringify([Deno.execPath(), ...(await startArgv(["--no-session"]))]));
