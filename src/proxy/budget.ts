import type { Budget } from '../schema/config.js';

/** Spend limits (pure): which budget applies to a run, and whether a figure is past it. */

/** A run's budget: harness and profile limits, field by field, the lower one winning. */
export function runBudget(harness: Budget | undefined, profile: Budget | undefined): Budget | undefined {
  const lower = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
  const tokens = lower(harness?.tokens, profile?.tokens);
  const usd = lower(harness?.usd, profile?.usd);
  if (tokens === undefined && usd === undefined) return undefined;
  return { ...(tokens !== undefined ? { tokens } : {}), ...(usd !== undefined ? { usd } : {}) };
}

export interface Spent {
  readonly tokens: number;
  readonly usd: number;
}

/** Why further requests are refused, as a sentence and as figures for the 429 answer. */
export interface OverBudget {
  readonly budget: 'run' | 'daily';
  readonly limit: 'tokens' | 'usd';
  readonly allowed: number;
  readonly spent: number;
  readonly reason: string;
}

/** The first limit `spent` has reached (a budget is used up when spending equals it). */
export function overBudget(which: 'run' | 'daily', budget: Budget | undefined, spent: Spent): OverBudget | undefined {
  if (!budget) return undefined;
  const where = which === 'run' ? 'this run' : 'today, across all runs';
  if (budget.tokens !== undefined && spent.tokens >= budget.tokens) {
    return { budget: which, limit: 'tokens', allowed: budget.tokens, spent: spent.tokens, reason: `${which} budget of ${budget.tokens} tokens used up: ${spent.tokens} tokens spent ${where}` };
  }
  if (budget.usd !== undefined && spent.usd >= budget.usd) {
    return { budget: which, limit: 'usd', allowed: budget.usd, spent: spent.usd, reason: `${which} budget of $${budget.usd} used up: $${spent.usd.toFixed(4)} spent ${where}` };
  }
  return undefined;
}
