/**
 * Records the tour as a terminal session: `deno task record-cast` writes docs/tour.cast (asciinema
 * v2) and docs/tour-screen.txt (the emulator's text at the end). The tour's scripted model
 * (scripts/_tour.ts) is served by the in-repo fake server; moat runs interactively in a real
 * pseudo-terminal in this repository, the tour's prompt is typed, and both approval questions are
 * answered No with Enter. What must vary between runs is normalised: the checkout's and the
 * throwaway HOME's paths, tool durations, token counts (VARYING) and the pauses (each capped at
 * MAX_PAUSE_S).
 * Run it again whenever what moat prints changes (tests/e2e/terminal_cast_test.ts says so).
 */
import { join } from "node:path";
import xterm from "@xterm/headless";
import { startFakeOpenAI } from "../tests/support/fake_openai.ts";
import { type OutputChunk, spawnMoatPty } from "../tests/support/pty.ts";
import { PROJECT_ROOT } from "../tests/e2e/_cli.ts";
import { TOUR_PROMPT, tourSteps } from "./_tour.ts";

/** Where the task writes. */
export const CAST_PATH: string = join(PROJECT_ROOT, "docs", "tour.cast");
export const SCREEN_PATH: string = join(PROJECT_ROOT, "docs", "tour-screen.txt");

const COLS = 100;
const ROWS = 40;
const MAX_PAUSE_S = 1;

/** A recorded cast and the screen it ends on. */
export interface TourCast {
  /** The .cast file's text. */
  cast: string;
  /** The screen text (scrollback and screen) the cast ends on. */
  screen: string;
}

/** Runs the tour in a pseudo-terminal and returns its normalised cast and final screen. */
export async function recordTourCast(): Promise<TourCast> {
  await using server = await startFakeOpenAI();
  server.script(...tourSteps());
  const term = await spawnMoatPty(
    ["--model", "tour-script", "--no-context-files", "--no-session"],
    {
      cwd: PROJECT_ROOT,
      // Colour on, as a person sees it.
      env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "not-needed", NO_COLOR: null },
      cols: COLS,
      rows: ROWS,
    },
  );
  try {
    await term.waitForText(/^›$/m);
    await term.write(`${TOUR_PROMPT}\r`);
    for (let asked = 0; asked < 2; asked++) {
      // Counted in all output: the first question may have scrolled away by the second.
      await term.waitForScreen(
        `approval question ${asked + 1}`,
        () => countAllow(term.raw) > asked,
      );
      await term.write("\r");
    }
    await term.waitForScreen(
      "the answer and the prompt",
      (s) => s.join("\n").includes("task -q start") && s.at(-1 - trailingBlank(s)) === "›",
    );
    await term.write("/exit\r");
    const code = await term.exited();
    if (code !== 0) throw new Error(`The tour's moat exited with code ${code}`);
  } finally {
    await term.close();
  }
  const events = normalise(term.chunks, [
    [PROJECT_ROOT, "/home/you/moat"],
    [term.home, "/home/you"],
  ]);
  const header = { version: 2, width: COLS, height: ROWS, env: { TERM: "xterm-256color" } };
  const cast = [JSON.stringify(header), ...events.map((e) => JSON.stringify([e.time, "o", e.text]))]
    .join("\n") + "\n";
  return { cast, screen: await playCast(cast) };
}

function countAllow(output: string): number {
  return output.split("Allow?").length - 1;
}

function trailingBlank(screen: string[]): number {
  let n = 0;
  while (n < screen.length && screen[screen.length - 1 - n] === "") n++;
  return n;
}

/** What varies between runs besides paths, and what the cast shows instead. */
const VARYING: Array<[RegExp, string]> = [
  // Tool durations.
  [/\(\d+(?:\.\d+)? m?s\)/g, "(10 ms)"],
  // Token counts (the fake server estimates them from the request, whose paths vary).
  [/\b\d[\d,]*(?= (?:in|out)\b)/g, "1,000"],
  // The context the status line tells (as a share of the window, or in tokens).
  [/(?<=\bcontext )(?:<1|\d+)%/g, "1%"],
  [/(?<=\bcontext )\d[\d,]*(?= \(window unknown\))/g, "1,000"],
];

/** Cast events from raw chunks: paths replaced, durations fixed, pauses capped. */
function normalise(
  chunks: readonly OutputChunk[],
  paths: Array<[string, string]>,
): Array<{ time: number; text: string }> {
  const decoder = new TextDecoder();
  const texts = chunks.map((c) => decoder.decode(c.data, { stream: true }));
  // Join chunks whose boundary falls inside something that is replaced, so each replacement
  // happens within one event.
  const joined = texts.join("");
  const covered: Array<[number, number]> = [];
  const patterns = [
    ...paths.map(([from]) => escapeRegExp(from)),
    ...VARYING.map(([p]) => p.source),
  ];
  for (const pattern of patterns) {
    for (const m of joined.matchAll(new RegExp(pattern, "g"))) {
      covered.push([m.index, m.index + m[0].length]);
    }
  }
  const events: Array<{ time: number; text: string }> = [];
  let offset = 0;
  let pending = "";
  let time = 0;
  let last = 0;
  texts.forEach((text, i) => {
    pending += text;
    offset += text.length;
    const atMs = chunks[i]?.atMs ?? last;
    if (covered.some(([a, b]) => a < offset && offset < b)) return;
    time += Math.min((atMs - last) / 1000, MAX_PAUSE_S);
    last = atMs;
    let out = pending;
    for (const [from, to] of paths) out = out.replaceAll(from, to);
    for (const [pattern, to] of VARYING) out = out.replace(pattern, to);
    events.push({ time: Math.round(time * 1000) / 1000, text: out });
    pending = "";
  });
  return events;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Plays a cast's output through a headless emulator: the text it ends on, trailing blanks cut. */
export async function playCast(cast: string): Promise<string> {
  const [head, ...lines] = cast.split("\n").filter((l) => l !== "");
  const header = JSON.parse(head ?? "{}") as { width: number; height: number };
  const term = new xterm.Terminal({
    cols: header.width,
    rows: header.height,
    scrollback: 10_000,
    allowProposedApi: true,
  });
  try {
    for (const line of lines) {
      const [, kind, data] = JSON.parse(line) as [number, string, string];
      if (kind === "o") await new Promise<void>((resolve) => term.write(data, resolve));
    }
    const buffer = term.buffer.active;
    const rows = Array.from(
      { length: buffer.length },
      (_, y) => buffer.getLine(y)?.translateToString(true).replace(/\s+$/, "") ?? "",
    );
    return rows.join("\n").replace(/\n+$/, "") + "\n";
  } finally {
    term.dispose();
  }
}

if (import.meta.main) {
  const { cast, screen } = await recordTourCast();
  await Deno.writeTextFile(CAST_PATH, cast);
  await Deno.writeTextFile(SCREEN_PATH, screen);
  await Deno.stderr.write(new TextEncoder().encode(`Recorded ${CAST_PATH} and ${SCREEN_PATH}\n`));
}
