/** Shared fixtures of the OpenAI adapter tests: a client of the fake server, a request, a tool. */
import { Type } from "@sinclair/typebox";
import { createOpenAiClient, type OpenAiClientOptions } from "../../../src/model/openai/mod.ts";
import assert from "node:assert/strict";
import {
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ToolSpec,
} from "../../../src/model/types.ts";
import type { FakeOpenAIServer } from "../../support/fake_openai.ts";

/** A client of `server` for model "test-model", with `options` on top. */
export function client(
  server: FakeOpenAIServer,
  options: Partial<OpenAiClientOptions> = {},
): ModelClient {
  return createOpenAiClient({
    baseURL: server.baseURL,
    apiKey: "sk-test",
    model: "test-model",
    ...options,
  });
}

/** A one-message request without tools, with `overrides` on top. */
export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: "You are a test.",
    messages: [{ role: "user", content: "hello" }],
    tools: [],
    ...overrides,
  };
}

/** A read tool whose TypeBox schema has descriptions, an optional field and a bound. */
export const readTool: ToolSpec = {
  name: "read",
  description: "Reads a file.",
  parameters: Type.Object({
    path: Type.String({ description: "File path, relative to the workspace." }),
    limit: Type.Optional(Type.Integer({ description: "Maximum lines.", minimum: 1 })),
  }),
};

/** The ModelError `promise` rejects with (fails the test otherwise). */
export async function modelError(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the stream to throw a ModelError");
}
