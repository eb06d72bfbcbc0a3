/**
 * `--output-schema FILE`: the final answer must be JSON valid against a JSON Schema. The model
 * gives it through a `final_answer` tool (or, where the server supports it, the response format),
 * moat validates it with Ajv, asks again with the problems (at most twice), and prints only the
 * JSON. Not valid after that: exit 7.
 */
import { resolve } from "node:path";
import type { ErrorObject } from "ajv";
import type { AnyTool } from "../agent/mod.ts";
import { readTextOrReason } from "./io.ts";
import type { RunSetup } from "./setup.ts";

/** Times the model is asked again when its answer does not match the schema. */
export const SCHEMA_RETRIES = 2;

/** The name of the tool the model gives its final answer with. */
export const FINAL_ANSWER_TOOL = "final_answer";

/** A loaded output schema. */
export interface OutputSchema {
  /** The file it came from, as given. */
  file: string;
  schema: Record<string, unknown>;
  /** How the model is asked for the answer. */
  via: "tool" | "response_format";
  /** The problems of `value` against the schema ("path: message"), empty when valid. */
  check(value: unknown): string[];
}

/** What the final_answer tool received. */
export interface AnswerSink {
  given: boolean;
  value?: unknown;
}

function problemsOf(errors: ErrorObject[] | null | undefined, prefix = ""): string[] {
  return (errors ?? []).map((e) => {
    const path = `${prefix}${e.instancePath}` || "/";
    const extra = e.keyword === "additionalProperties"
      ? ` ("${String((e.params as { additionalProperty?: unknown }).additionalProperty)}")`
      : "";
    return `${path}: ${e.message ?? e.keyword}${extra}`;
  });
}

/** Reads and compiles the schema file; a bad file is a usage error naming it and the problem. */
export async function loadOutputSchema(
  setup: RunSetup,
  file: string,
): Promise<{ ok: true; schema: OutputSchema } | { ok: false; error: string }> {
  const path = resolve(setup.startCwd, file);
  const read = await readTextOrReason(setup.fs, path);
  if ("reason" in read) {
    return { ok: false, error: `Cannot read the output schema "${file}": ${read.reason}` };
  }
  if (read.text === null) {
    return {
      ok: false,
      error: `The output schema "${file}" does not exist: give a JSON Schema file`,
    };
  }
  let schema: unknown;
  try {
    schema = JSON.parse(read.text);
  } catch (e) {
    return {
      ok: false,
      error: `The output schema "${file}" is not valid JSON: ${
        e instanceof Error ? e.message : String(e)
      }`,
    };
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return {
      ok: false,
      error: `The output schema "${file}" must be a JSON Schema object, e.g. {"type": "object"}`,
    };
  }
  // Loaded only for --output-schema: it is a large module graph.
  const ajvModule = await import("ajv");
  // From the sources Deno names ajv's exports; from the CLI's bundle the CommonJS module is the
  // default export only (its `Ajv` property is the same class).
  const Ajv = ajvModule.Ajv ?? ajvModule.default;
  const ajv = new Ajv({ allErrors: true, strict: false });
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (e) {
    return {
      ok: false,
      error: `The output schema "${file}" is not a valid JSON Schema: ${
        e instanceof Error ? e.message : String(e)
      }`,
    };
  }
  const record = schema as Record<string, unknown>;
  return {
    ok: true,
    schema: {
      file,
      schema: record,
      via: setup.settings.compat?.structuredOutput === true ? "response_format" : "tool",
      check: (value) => validate(value) ? [] : problemsOf(validate.errors),
    },
  };
}

/** Object schemas are the tool's parameters; anything else is wrapped as `{answer: …}`. */
function wraps(schema: OutputSchema): boolean {
  return schema.schema.type !== "object";
}

/** The tool the model ends the run with; what it was given lands in `sink`. */
export function finalAnswerTool(schema: OutputSchema, sink: AnswerSink): AnyTool {
  const wrapped = wraps(schema);
  const parameters = wrapped
    ? {
      type: "object",
      properties: { answer: schema.schema },
      required: ["answer"],
      additionalProperties: false,
    }
    : schema.schema;
  const inner = (args: unknown) =>
    wrapped ? (args as { answer?: unknown } | undefined)?.answer : args;
  return {
    name: FINAL_ANSWER_TOOL,
    label: "Final answer",
    description: "Give your final answer as JSON matching these parameters, once the task is " +
      `done. The run ends with this call.${wrapped ? " Put the answer in `answer`." : ""}`,
    // deno-lint-ignore no-explicit-any
    parameters: parameters as any,
    kind: "read",
    validateArguments(args) {
      if (wrapped && (typeof args !== "object" || args === null || !("answer" in args))) {
        return ["/answer: is required"];
      }
      return schema.check(inner(args)).map((p) =>
        wrapped ? `/answer${p.replace(/^\/(?=:)/, "")}` : p
      );
    },
    execute(args) {
      sink.given = true;
      sink.value = inner(args);
      return Promise.resolve({ output: "Answer recorded. The run ends here." });
    },
  };
}

/** What the system prompt adds: how the answer must be given. */
export function answerInstructions(schema: OutputSchema): string {
  return schema.via === "tool"
    ? `When the task is done, give your final answer by calling the ${FINAL_ANSWER_TOOL} tool ` +
      "with JSON that matches its parameters, instead of writing it as text."
    : "When the task is done, your final reply must be only JSON that matches the response " +
      "format's schema, without any other text.";
}

/** The JSON in a text answer (bare, or in one ```json fence), or a reason it is not JSON. */
export function parseAnswerText(text: string): { ok: true; value: unknown } | { ok: false } {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  try {
    return { ok: true, value: JSON.parse(fenced?.[1] ?? trimmed) };
  } catch {
    return { ok: false };
  }
}

/** The message that asks the model again, naming what was wrong. */
export function correctionPrompt(schema: OutputSchema, problems: readonly string[]): string {
  const how = schema.via === "tool"
    ? `Call the ${FINAL_ANSWER_TOOL} tool with JSON that matches its parameters.`
    : "Reply with only the JSON, matching the response format's schema.";
  return `[moat] Your final answer does not match the required JSON Schema (${schema.file}): ${
    problems.slice(0, 10).join("; ")
  }. ${how}`;
}
