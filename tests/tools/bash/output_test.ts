import assert from "node:assert/strict";
import { looksLikeBinaryText } from "../../../src/tools/bash/output.ts";

Deno.test("looksLikeBinaryText() tells binary noise from text with colours and tabs", () => {
  assert.equal(looksLikeBinaryText(""), false);
  assert.equal(looksLikeBinaryText("plain\ttext\r\n\x1b[31mred\x1b[0m ✓ ünïcödé"), false);
  assert.equal(looksLikeBinaryText("PK\x03\x04\0\0 archive"), true, "a NUL byte");
  assert.equal(looksLikeBinaryText("ab\uFFFD\uFFFD\x01\x02cdefgh"), true);
  assert.equal(looksLikeBinaryText("one bad byte \uFFFD in a long enough line of text"), false);
});
