import assert from "node:assert/strict";
import { parseCliArgs } from "../../src/cli/args.ts";
import { parseConfigFile, resolveSettings } from "../../src/cli/config.ts";
import { SENSITIVE_KEYS } from "../../src/cli/trust.ts";
import { costOf, formatCost, usageLine } from "../../src/report/usage.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";

const prices = { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 };
const usage = { inputTokens: 12_345, outputTokens: 678, cachedTokens: 10_000, totalTokens: 13_023 };

Deno.test("costOf() prices cached input tokens apart from the rest of the input", () => {
  // 2,345 uncached × 2 + 10,000 cached × 0.5 + 678 × 8, per million.
  assert.equal(costOf(usage, prices), 0.015114);
  // Without a cached price, cached tokens cost what input costs.
  assert.equal(costOf(usage, { inputPerMTok: 2, outputPerMTok: 8 }), 0.030114);
  assert.equal(
    costOf({ inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 }, prices),
    0,
  );
});

Deno.test("formatCost() shows 4 significant digits without exponents", () => {
  assert.equal(formatCost(0.014114), "0.01411");
  assert.equal(formatCost(0.000001234567), "0.000001235");
  assert.equal(formatCost(1.5), "1.5");
  assert.equal(formatCost(1234567), "1,235,000");
  assert.equal(formatCost(0), "0");
});

Deno.test("usageLine() shows input, cached (if any) and output tokens, and the cost with prices", () => {
  assert.equal(
    usageLine(usage, prices),
    "tokens: 12,345 in (10,000 cached) · 678 out · cost 0.01511",
  );
  assert.equal(
    usageLine({ ...usage, cachedTokens: 0 }, undefined),
    "tokens: 12,345 in · 678 out",
  );
  // A server that reports no usage gets no line.
  assert.equal(
    usageLine({ inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 }, prices),
    null,
  );
});

Deno.test("config prices are validated, apply from a project without trust, and reach the settings", async () => {
  assert.ok(parseConfigFile("/c.json", JSON.stringify({ prices })).ok);
  assert.ok(
    parseConfigFile("/c.json", JSON.stringify({ prices: { inputPerMTok: 1, outputPerMTok: 2 } }))
      .ok,
  );
  for (
    const [bad, field] of [
      [{ inputPerMTok: 1 }, "prices.outputPerMTok"],
      [{ inputPerMTok: -1, outputPerMTok: 1 }, "prices.inputPerMTok"],
      [{ inputPerMTok: 1, outputPerMTok: 1, currency: "EUR" }, "prices.currency"],
    ] as const
  ) {
    const result = parseConfigFile("/c.json", JSON.stringify({ prices: bad }));
    assert.ok(!result.ok, JSON.stringify(bad));
    assert.match(result.error, new RegExp(`field "${field.replace(".", "\\.")}"`));
  }
  // Prices only change what moat shows: a project may set them without being trusted.
  assert.ok(!(SENSITIVE_KEYS as readonly string[]).includes("prices"));
  await using ws = await createTempWorkspace({ ".moat/config.json": JSON.stringify({ prices }) });
  const parsed = parseCliArgs([]);
  assert.ok(parsed.ok && parsed.command === "run");
  const resolved = await resolveSettings(parsed.flags, {
    env: { HOME: ws.path("home") },
    workspace: ws.dir,
    fs: createDenoCliFs(),
  });
  assert.ok(resolved.ok, resolved.ok ? "" : resolved.error);
  assert.deepEqual(resolved.settings.prices, prices);
  assert.deepEqual(resolved.settings.warnings, []);
});
