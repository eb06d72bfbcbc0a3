/** --output-schema: the schema file, the final_answer tool, text answers and the correction loop. */
import assert from "node:assert/strict";
import type { AgentRunResult } from "../../src/agent/mod.ts";
import type { AnswerChannel, RunOutcome } from "../../src/cli/engine.ts";
import { runForAnswer } from "../../src/cli/modes/_answer.ts";
import type { RunSetup } from "../../src/cli/setup.ts";
import {
  type AnswerSink,
  correctionPrompt,
  FINAL_ANSWER_TOOL,
  finalAnswerTool,
  loadOutputSchema,
  type OutputSchema,
  parseAnswerText,
} from "../../src/cli/structured.ts";
import { emptyUsage, type UserMessage } from "../../src/model/types.ts";

/**
 * Loads `schema` as the file "schema.json" through loadOutputSchema, with only what it reads of
 * a RunSetup (the start directory, the file system and the compat settings).
 */
async function load(
  schema: unknown,
  options: { structuredOutput?: boolean; text?: string | null } = {},
): Promise<OutputSchema> {
  const loaded = await loadWith(
    options.text === undefined ? JSON.stringify(schema) : options.text,
    {
      structuredOutput: options.structuredOutput ?? false,
    },
  );
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.schema;
}

function loadWith(text: string | null, options: { structuredOutput?: boolean } = {}) {
  const setup = {
    startCwd: "/work",
    fs: {
      readTextFile: (path: string) => Promise.resolve(path === "/work/schema.json" ? text : null),
    },
    settings: { compat: { structuredOutput: options.structuredOutput ?? false } },
  } as unknown as RunSetup;
  return loadOutputSchema(setup, "schema.json");
}

const PERSON = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
  required: ["name"],
  additionalProperties: false,
};

const TAGS = { type: "array", items: { type: "string" } };

Deno.test("loadOutputSchema() names the file and the problem of a bad schema file", async () => {
  const missing = await loadWith(null);
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.error : "", /"schema.json" does not exist/);
  const notJson = await loadWith("{type: object}");
  assert.match(!notJson.ok ? notJson.error : "", /"schema.json" is not valid JSON/);
  const array = await loadWith("[]");
  assert.match(!array.ok ? array.error : "", /must be a JSON Schema object/);
  const invalid = await loadWith(JSON.stringify({ type: "no-such-type" }));
  assert.match(!invalid.ok ? invalid.error : "", /"schema.json" is not a valid JSON Schema/);
});

Deno.test("loadOutputSchema() asks through the tool unless the server supports the response format", async () => {
  assert.equal((await load(PERSON)).via, "tool");
  assert.equal((await load(PERSON, { structuredOutput: true })).via, "response_format");
});

Deno.test("parseAnswerText() accepts bare JSON and one ```json fence, and rejects anything else", () => {
  assert.deepEqual(parseAnswerText(' {"name": "Ada"} \n'), { ok: true, value: { name: "Ada" } });
  assert.deepEqual(parseAnswerText('```json\n{"name": "Ada"}\n```'), {
    ok: true,
    value: { name: "Ada" },
  });
  assert.deepEqual(parseAnswerText("```\n[1, 2]\n```"), { ok: true, value: [1, 2] });
  assert.deepEqual(parseAnswerText('Here it is: {"name": "Ada"}'), { ok: false });
  assert.deepEqual(parseAnswerText("```json\nnot json\n```"), { ok: false });
  assert.deepEqual(parseAnswerText(""), { ok: false });
});

Deno.test("finalAnswerTool() for an object schema takes the schema as parameters and validates against it", async () => {
  const schema = await load(PERSON);
  const sink: AnswerSink = { given: false };
  const tool = finalAnswerTool(schema, sink);
  assert.equal(tool.name, FINAL_ANSWER_TOOL);
  assert.deepEqual(tool.parameters, PERSON);
  assert.deepEqual(tool.validateArguments?.({ name: "Ada", age: 36 }), []);
  assert.deepEqual(tool.validateArguments?.({ name: 7, age: -1, extra: true }), [
    '/: must NOT have additional properties ("extra")',
    "/name: must be string",
    "/age: must be >= 0",
  ]);
  assert.deepEqual(tool.validateArguments?.({}), ["/: must have required property 'name'"]);

  const output = await tool.execute({ name: "Ada" } as never, new AbortController().signal, {
    toolCallId: "c1",
  } as never);
  assert.equal(output.isError, undefined);
  assert.deepEqual(sink, { given: true, value: { name: "Ada" } });
});

Deno.test("finalAnswerTool() wraps a non-object schema as {answer} and reports problems under /answer", async () => {
  const schema = await load(TAGS);
  const sink: AnswerSink = { given: false };
  const tool = finalAnswerTool(schema, sink);
  assert.deepEqual(tool.parameters, {
    type: "object",
    properties: { answer: TAGS },
    required: ["answer"],
    additionalProperties: false,
  });
  assert.match(tool.description, /Put the answer in `answer`/);
  assert.deepEqual(tool.validateArguments?.({ answer: ["a", "b"] }), []);
  assert.deepEqual(tool.validateArguments?.({}), ["/answer: is required"]);
  assert.deepEqual(tool.validateArguments?.({ answer: ["a", 2] }), ["/answer/1: must be string"]);
  assert.deepEqual(tool.validateArguments?.({ answer: "a" }), ["/answer: must be array"]);

  await tool.execute({ answer: ["a"] } as never, new AbortController().signal, {} as never);
  assert.deepEqual(sink, { given: true, value: ["a"] });
});

Deno.test("correctionPrompt() names the schema file, the problems and how to answer", async () => {
  const viaTool = correctionPrompt(await load(PERSON), ["/name: must be string", "/age: x"]);
  assert.match(viaTool, /\(schema\.json\): \/name: must be string; \/age: x\./);
  assert.match(viaTool, /Call the final_answer tool/);
  const viaFormat = correctionPrompt(await load(PERSON, { structuredOutput: true }), ["bad"]);
  assert.match(viaFormat, /Reply with only the JSON/);
  assert.doesNotMatch(viaFormat, /final_answer/);
});

function completed(): RunOutcome {
  const result: AgentRunResult = { stopReason: "completed", turns: 1, usage: emptyUsage() };
  return { result };
}

/** A fake `run`: each attempt does what `attempts` says (call the tool, or answer `text`). */
function fakeRun(
  attempts: Array<
    { tool: unknown } | { text: string } | { outcome: RunOutcome; text?: string }
  >,
) {
  const prompts: UserMessage[] = [];
  const channels: AnswerChannel[] = [];
  let lastText = "";
  return {
    prompts,
    channels,
    lastText: () => lastText,
    run: async (prompt: UserMessage, channel: AnswerChannel): Promise<RunOutcome> => {
      prompts.push(prompt);
      channels.push(channel);
      const attempt = attempts.shift();
      if (attempt === undefined) throw new Error(`attempt ${prompts.length} was not scripted`);
      if ("tool" in attempt) {
        const tool = channel.tools.find((t) => t.name === FINAL_ANSWER_TOOL);
        assert.ok(tool !== undefined, "the channel offers the final_answer tool");
        // The loop validates the arguments before it runs the tool.
        assert.deepEqual(tool.validateArguments?.(attempt.tool), []);
        await tool.execute(attempt.tool as never, new AbortController().signal, {} as never);
        lastText = "";
        return completed();
      }
      lastText = attempt.text ?? "";
      return "outcome" in attempt ? attempt.outcome : completed();
    },
  };
}

const ASK: UserMessage = { role: "user", content: "Who wrote the first program?" };

Deno.test("runForAnswer() returns the value given through the final_answer tool", async () => {
  const schema = await load(PERSON);
  const fake = fakeRun([{ tool: { name: "Ada" } }]);
  const answer = await runForAnswer(schema, ASK, fake);
  assert.deepEqual(answer.value, { name: "Ada" });
  assert.equal(answer.problems, undefined);
  assert.deepEqual(fake.prompts, [ASK]);
  assert.match(fake.channels[0]?.instructions ?? "", /calling the final_answer tool/);
  assert.equal(fake.channels[0]?.responseSchema, undefined);
});

Deno.test("runForAnswer() accepts a valid JSON text answer", async () => {
  const schema = await load(PERSON);
  const fake = fakeRun([{ text: '```json\n{"name": "Ada", "age": 36}\n```' }]);
  const answer = await runForAnswer(schema, ASK, fake);
  assert.deepEqual(answer.value, { name: "Ada", age: 36 });
  assert.equal(fake.prompts.length, 1);
});

Deno.test("runForAnswer() asks for two corrections, then gives up with the last problems", async () => {
  const schema = await load(PERSON);
  const fake = fakeRun([
    { text: "Ada Lovelace" },
    { text: '{"name": 1}' },
    { text: '{"age": -1}' },
  ]);
  const answer = await runForAnswer(schema, ASK, fake);
  assert.equal(answer.value, undefined);
  assert.deepEqual(answer.problems, [
    "/: must have required property 'name'",
    "/age: must be >= 0",
  ]);
  assert.equal(fake.prompts.length, 3);
  assert.equal(fake.prompts[0], ASK);
  assert.match(
    String(fake.prompts[1]?.content),
    /the answer was text, not a call of the final_answer tool/,
  );
  assert.match(String(fake.prompts[2]?.content), /\/name: must be string/);
});

Deno.test("runForAnswer() takes a corrected answer on the second attempt", async () => {
  const schema = await load(PERSON, { structuredOutput: true });
  const fake = fakeRun([{ text: "not json" }, { text: '{"name": "Ada"}' }]);
  const answer = await runForAnswer(schema, ASK, fake);
  assert.deepEqual(answer.value, { name: "Ada" });
  assert.match(String(fake.prompts[1]?.content), /the answer is not JSON/);
  assert.deepEqual(fake.channels[0]?.tools, [], "the response format needs no tool");
  assert.deepEqual(fake.channels[0]?.responseSchema, PERSON);
});

Deno.test("runForAnswer() stops at once when a run does not complete", async () => {
  const schema = await load(PERSON);
  const limited: RunOutcome = {
    result: {
      stopReason: "limitReached",
      limit: "max_tool_calls",
      finalAnswer: true,
      turns: 3,
      usage: emptyUsage(),
    },
  };
  const fake = fakeRun([{ outcome: limited, text: "I ran out of tool calls." }]);
  const answer = await runForAnswer(schema, ASK, fake);
  assert.deepEqual(answer, { outcome: limited });
  assert.equal(fake.prompts.length, 1);
});
