/**
 * `deno task bench`: measures moat against the limits that matter (bench issue), each figure next
 * to a baseline measured in the same run, and prints one Markdown table on stdout (progress goes
 * to stderr). Flags: `--quick` (small data, 3 runs — for development), `--only=a,b` (measure names
 * or numbers), `--runs=N` (repetitions, ≥ 5 unless --quick).
 *
 * Generated data lives in one temp dir under /tmp, removed at the end, on error and on
 * SIGINT/SIGTERM. Nothing here is a test: a missed target is reported, never a failure exit.
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { BenchEnv } from "./_bench/env.ts";
import { DataSets, FULL_SIZES, type Measure, QUICK_SIZES } from "./_bench/measure.ts";
import { MEASURES } from "./_bench/measures.ts";
import { machineFacts } from "./_bench/proc.ts";
import { renderTable, type Row } from "./_bench/table.ts";

const encoder = new TextEncoder();

function write(text: string): void {
  Deno.stdout.writeSync(encoder.encode(text));
}

function usage(message: string): never {
  Deno.stderr.writeSync(
    encoder.encode(
      `bench: ${message}\nUsage: deno task bench [--quick] [--only=${
        MEASURES.map((m) => m.name).join(",")
      }] [--runs=N]\n`,
    ),
  );
  Deno.exit(2);
}

function selectMeasures(only: string | undefined): Measure[] {
  if (only === undefined) return MEASURES;
  const wanted = only.split(",").map((s) => s.trim()).filter((s) => s !== "");
  const out: Measure[] = [];
  for (const w of wanted) {
    const m = MEASURES.find((m) => m.name === w || String(m.id) === w);
    if (m === undefined) usage(`unknown measure "${w}"`);
    if (!out.includes(m)) out.push(m);
  }
  return out.sort((a, b) => a.id - b.id);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: Deno.args,
      strict: true,
      options: {
        quick: { type: "boolean", default: false },
        only: { type: "string" },
        runs: { type: "string" },
      },
    });
  } catch (e) {
    usage(e instanceof Error ? e.message : String(e));
  }
  const quick = parsed.values.quick ?? false;
  const runs = parsed.values.runs === undefined ? (quick ? 3 : 5) : Number(parsed.values.runs);
  if (!Number.isInteger(runs) || runs < 1) usage(`--runs expects a positive integer`);
  if (!quick && runs < 5) usage(`--runs must be at least 5 for a full run (use --quick)`);
  const measures = selectMeasures(parsed.values.only);

  const projectRoot = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
  const env = await BenchEnv.create(projectRoot, { quick, runs });
  const onSignal = (signal: Deno.Signal, code: number) => () => {
    env.log(`${signal}: stopping, removing ${env.root}`);
    env.cleanup();
    Deno.exit(code);
  };
  const onInt = onSignal("SIGINT", 130);
  const onTerm = onSignal("SIGTERM", 143);
  Deno.addSignalListener("SIGINT", onInt);
  Deno.addSignalListener("SIGTERM", onTerm);

  const started = performance.now();
  const rows: Row[] = [];
  try {
    const data = new DataSets(env, quick ? QUICK_SIZES : FULL_SIZES);
    for (const m of measures) {
      const t = performance.now();
      env.log(`${m.id} ${m.name}: running`);
      try {
        rows.push(...await m.run(env, data));
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        env.log(`${m.id} ${m.name}: failed: ${message}`);
        rows.push({
          id: m.id,
          measure: m.title,
          moat: { text: "error" },
          note: `${m.title} failed: ${message.split("\n").slice(0, 6).join(" / ")}`,
        });
      }
      env.log(`${m.id} ${m.name}: done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
  } finally {
    env.cleanup();
    Deno.removeSignalListener("SIGINT", onInt);
    Deno.removeSignalListener("SIGTERM", onTerm);
  }

  const facts = machineFacts();
  const seconds = (performance.now() - started) / 1000;
  const header = [
    `Machine: ${facts.cores} cores (${facts.cpu}), ${
      facts.memGiB.toFixed(1)
    } GiB memory, Linux ${facts.kernel}`,
    `Deno ${Deno.version.deno} (V8 ${Deno.version.v8}); ${new Date().toISOString().slice(0, 10)}`,
    `${quick ? "QUICK run (small data; not comparable)" : "Full run"}: median of ${runs} runs ` +
    `(min–max in parentheses), baselines measured in the same run; bench took ${
      seconds.toFixed(0)
    } s`,
    "Reproduce: `npx -y deno@2.9.6 task bench`",
  ];
  write(renderTable({ title: "moat benchmark", lines: header }, rows));
}

if (import.meta.main) await main();
