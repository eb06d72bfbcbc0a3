/**
 * Records examples/tour.jsonl: `deno task record-tour`. The tour's model side is scripted (no model
 * API is needed) and served by the in-repo fake OpenAI server; everything else is a real moat run
 * in this repository with the default grants, so the recorded tool results and denials are real.
 * Run it again whenever the files the tour reads change (the tour's replay check then says so).
 */
import { join } from "node:path";
import { startFakeOpenAI } from "../tests/support/fake_openai.ts";
import { cliEnv, PROJECT_ROOT, startArgv } from "../tests/e2e/_cli.ts";
import { TOUR_PROMPT, tourSteps } from "./_tour.ts";

const target = join(PROJECT_ROOT, "examples", "tour.jsonl");

const server = await startFakeOpenAI();
// Recorded outside the repository, so the tour's own listing never shows a half-written file.
const dir = await Deno.makeTempDir({ prefix: "moat-tour-" });
try {
  server.script(...tourSteps());
  const partial = join(dir, "tour.jsonl");
  const child = new Deno.Command(Deno.execPath(), {
    // Exactly as `deno task start` runs moat, as the e2e tests do.
    args: await startArgv([
      "--base-url",
      server.baseURL,
      "--model",
      "tour-script",
      "--session",
      partial,
      "--no-context-files",
      TOUR_PROMPT,
    ]),
    cwd: PROJECT_ROOT,
    // A clean environment with a throwaway HOME: no model settings, config or home path of
    // whoever records it end up in the recording.
    env: cliEnv(dir, { OPENAI_API_KEY: "not-needed" }),
    clearEnv: true,
    stdin: "null",
  });
  const status = await child.output();
  await Deno.stdout.write(status.stdout);
  await Deno.stderr.write(status.stderr);
  if (!status.success) throw new Error(`The recording run exited with code ${status.code}`);
  await Deno.copyFile(partial, target);
  await Deno.stderr.write(new TextEncoder().encode(`Recorded ${target}\n`));
} finally {
  await Deno.remove(dir, { recursive: true });
  await server.close();
}
