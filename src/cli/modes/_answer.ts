/**
 * Print mode's structured answer (--output-schema): runs the prompt with the answer channel, then
 * judges the answer and, while it does not match, asks again with the problems (at most twice).
 */
import type { UserMessage } from "../../model/types.ts";
import { type AnswerChannel, type RunOutcome, stopReasonOf } from "../engine.ts";
import {
  answerInstructions,
  type AnswerSink,
  correctionPrompt,
  finalAnswerTool,
  type OutputSchema,
  parseAnswerText,
  SCHEMA_RETRIES,
} from "../structured.ts";

/** How the structured answer came out. */
export interface AnswerOutcome {
  outcome: RunOutcome;
  /** The valid answer. */
  value?: unknown;
  /** What was still wrong after the last attempt (the run completed without a valid answer). */
  problems?: string[];
}

/**
 * Runs `prompt` (through `run`, which calls runOnce with the same history and counters) until
 * the answer matches `schema` or SCHEMA_RETRIES corrections were asked for. A run that did not
 * complete (an error, a limit, a signal) is not asked again.
 */
export async function runForAnswer(
  schema: OutputSchema,
  prompt: UserMessage,
  options: {
    run: (prompt: UserMessage, channel: AnswerChannel) => Promise<RunOutcome>;
    lastText: () => string;
  },
): Promise<AnswerOutcome> {
  const sink: AnswerSink = { given: false };
  const channel: AnswerChannel = {
    tools: schema.via === "tool" ? [finalAnswerTool(schema, sink)] : [],
    instructions: answerInstructions(schema),
    ...(schema.via === "response_format" ? { responseSchema: schema.schema } : {}),
  };
  let next = prompt;
  for (let attempt = 0;; attempt++) {
    sink.given = false;
    delete sink.value;
    const outcome = await options.run(next, channel);
    if (stopReasonOf(outcome, false) !== "completed") return { outcome };
    // The tool validated its arguments already; a text answer is judged here.
    if (sink.given) return { outcome, value: sink.value };
    const parsed = parseAnswerText(options.lastText());
    const problems = parsed.ok ? schema.check(parsed.value) : [
      schema.via === "tool"
        ? `the answer was text, not a call of the final_answer tool`
        : "the answer is not JSON",
    ];
    if (parsed.ok && problems.length === 0) return { outcome, value: parsed.value };
    if (attempt >= SCHEMA_RETRIES) return { outcome, problems };
    next = { role: "user", content: correctionPrompt(schema, problems) };
  }
}
