import assert from "node:assert/strict";
import { truncateMiddle } from "../../src/agent/result_cap.ts";

Deno.test("truncateMiddle() keeps 60% head and 40% tail with an omission marker", () => {
  const text = "a".repeat(100) + "b".repeat(100);
  const r = truncateMiddle(text, 50);
  assert.equal(r.truncated, true);
  assert.ok(r.content.startsWith("a".repeat(30) + "\n[… 150 characters omitted …]\n"));
  assert.ok(r.content.endsWith("\n" + "b".repeat(20)));
  assert.equal(truncateMiddle("short", 50).content, "short");
});
