/** A run's limits besides --max-turns, from the settings (the agent core enforces them). */
import type { RunLimits } from "../agent/mod.ts";
import { costOf } from "../report/usage.ts";
import { pricesFor } from "./config.ts";
import type { RunSetup } from "./setup.ts";

/** The run's limits besides --max-turns, from the settings. */
export function runLimits(setup: RunSetup, model: string): RunLimits {
  const { settings } = setup;
  const limits: RunLimits = {};
  if (settings.maxToolCalls !== undefined) limits.maxToolCalls = settings.maxToolCalls;
  if (settings.maxTokensTotal !== undefined) limits.maxTokensTotal = settings.maxTokensTotal;
  if (settings.maxWallTime !== undefined) limits.maxWallTimeMs = settings.maxWallTime * 1000;
  const prices = pricesFor(settings, model);
  const maxCost = settings.maxCost;
  if (maxCost !== undefined && prices !== undefined) {
    limits.check = (usage) => costOf(usage, prices) >= maxCost ? "max_cost" : undefined;
  }
  // A replay's replies are already written: a final request would have no reply to play.
  if (setup.recording !== undefined) limits.finalAnswer = false;
  return limits;
}
