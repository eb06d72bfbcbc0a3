/**
 * Token usage for people: the short line interactive mode shows after each answer, and its cost
 * when the config gives prices (`prices`, per million tokens, in whatever currency the user
 * wants; moat never converts or names it).
 */
import { type Static, Type } from "@sinclair/typebox";
import type { Usage } from "../model/types.ts";

/** Schema of the config's `prices` object. */
export const PricesSchema = Type.Object({
  inputPerMTok: Type.Number({ minimum: 0, description: "Price of a million input tokens." }),
  outputPerMTok: Type.Number({ minimum: 0, description: "Price of a million output tokens." }),
  cachedInputPerMTok: Type.Optional(
    Type.Number({
      minimum: 0,
      description: "Price of a million cached input tokens (default: inputPerMTok).",
    }),
  ),
}, {
  additionalProperties: false,
  description: "Token prices in your currency; moat then shows what each answer cost.",
});

/** Token prices per million tokens. */
export type Prices = Static<typeof PricesSchema>;

/**
 * The cost of `usage` at `prices`. Cached tokens are part of the input tokens (as OpenAI counts
 * them) and cost `cachedInputPerMTok` instead of `inputPerMTok`.
 */
export function costOf(usage: Usage, prices: Prices): number {
  const cached = Math.min(usage.cachedTokens, usage.inputTokens);
  const cost = (usage.inputTokens - cached) * prices.inputPerMTok +
    cached * (prices.cachedInputPerMTok ?? prices.inputPerMTok) +
    usage.outputTokens * prices.outputPerMTok;
  // Twelve significant digits keep the sum exact for people and drop floating-point dust.
  return Number((cost / 1_000_000).toPrecision(12));
}

// Made on first use: the first Intl formatter loads ICU's data, which a start need not wait for.
let counts: Intl.NumberFormat | undefined;
let costs: Intl.NumberFormat | undefined;
const COUNT = { format: (n: number) => (counts ??= new Intl.NumberFormat("en-US")).format(n) };
const COST = {
  format: (n: number) =>
    (costs ??= new Intl.NumberFormat("en-US", { maximumSignificantDigits: 4 })).format(n),
};

/** A count with thousands separators, e.g. `12,345`. */
export function formatCount(n: number): string {
  return COUNT.format(n);
}

/** A cost with at most 4 significant digits, e.g. `0.002345`, `1.5`, `1,235`. */
export function formatCost(cost: number): string {
  return COST.format(cost);
}

/**
 * One line about the tokens a run used (`tokens: 1,234 in (1,000 cached) · 56 out · cost 0.0123`),
 * or null when the server reported none.
 */
export function usageLine(usage: Usage, prices: Prices | undefined): string | null {
  if (usage.inputTokens === 0 && usage.outputTokens === 0) return null;
  const cached = usage.cachedTokens > 0 ? ` (${COUNT.format(usage.cachedTokens)} cached)` : "";
  const cost = prices === undefined ? "" : ` · cost ${formatCost(costOf(usage, prices))}`;
  return `tokens: ${COUNT.format(usage.inputTokens)} in${cached} · ${
    COUNT.format(usage.outputTokens)
  } out${cost}`;
}
