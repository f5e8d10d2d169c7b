// The caps an agent cannot break, checked before anything is sent: the template's own price cap
// (offer.maxDphTotal), the per-hour cap and the monthly budget. The budget counts this month's
// charges, the account's running rate and the new machine for one hour; when a budget is set and
// the charges cannot be read, nothing is rented (a cap that cannot be checked is not kept).
import type { ServiceApi } from '../api/types';
import { formatMoney, formatRate } from '../core/rates';
import { summarizeCosts } from '../costs/costs';
import { SpendingSum, monthStart } from '../billing/spending';
import { describeError } from '../core/describeError';
import type { AgentCaps, AgentPorts, SpendingNow } from './toolTypes';
import { ToolError } from './toolTypes';

/** A rate with enough decimals to tell two caps apart ("$0.412/h"). */
export const rate = (perHour: number): string => formatRate(perHour, perHour < 1 ? 3 : 2);

/** This month's charges (UTC) and the account's running rate (the service's figure, else the instances' sum). */
export async function readSpending(api: ServiceApi, nowMs: number): Promise<SpendingNow> {
  const now = Math.floor(nowMs / 1000);
  const sum = new SpendingSum(now);
  await api.forEachChargePage({ from: monthStart(now), to: now }, (rows) => sum.add(rows));
  const service = await api.spendRate().catch(() => undefined);
  const ratePerHour = service?.totalPerHour ?? summarizeCosts((await api.listInstances()).instances, undefined).totalPerHour;
  return { spentThisMonth: sum.result().month, ratePerHour };
}

/** The spending the budget is judged on; undefined when no budget is set (nothing to read). */
export async function spendingForCaps(ports: AgentPorts, caps: AgentCaps): Promise<SpendingNow | undefined> {
  if (caps.monthlyBudget === undefined) return undefined;
  try {
    return ports.spending ? await ports.spending() : await readSpending(await ports.api(), ports.clock.now());
  } catch (e) {
    throw new ToolError(
      `Nothing was sent: the monthly budget (${formatMoney(caps.monthlyBudget)}) cannot be checked because this month's charges could not be read (${describeError(e)}). Try again in a minute.`,
    );
  }
}

export interface CapCheck {
  /** $/h the action adds (the offer's price with its disk, or the instance's rate). */
  perHour: number;
  /** The template's offer.maxDphTotal, when renting from one. */
  templateCap?: number;
  caps: AgentCaps;
  spending?: SpendingNow;
}

/** Why the action would break a cap (a sentence that says what to do), or undefined when it fits. */
export function capProblem(c: CapCheck): string | undefined {
  if (!Number.isFinite(c.perHour) || c.perHour < 0) return `The price (${String(c.perHour)}) is not a valid rate, so nothing was sent.`;
  if (c.templateCap !== undefined && c.perHour > c.templateCap + 1e-9)
    return `${rate(c.perHour)} is above the template's price cap (offer.maxDphTotal ${rate(c.templateCap)}). Nothing was sent. Pick a cheaper offer or raise the template's cap.`;
  const { maxDphTotal, monthlyBudget, maxDphFrom } = c.caps;
  if (maxDphTotal !== undefined && c.perHour > maxDphTotal + 1e-9)
    return `${rate(c.perHour)} is above the per-hour cap for agents (${rate(maxDphTotal)}${maxDphFrom ? `, set by ${maxDphFrom}` : ''}). Nothing was sent. Pick a cheaper offer, or ask the user to raise ${maxDphFrom ?? 'the cap'}.`;
  if (monthlyBudget !== undefined) {
    const s = c.spending;
    if (!s) return `The monthly budget (${formatMoney(monthlyBudget)}) could not be checked, so nothing was sent.`;
    const hour = s.spentThisMonth + Math.max(0, s.ratePerHour) + c.perHour;
    if (hour > monthlyBudget + 1e-9)
      return `This would break the monthly budget: ${formatMoney(s.spentThisMonth)} spent this month, ${rate(Math.max(0, s.ratePerHour))} already running, and ${rate(c.perHour)} more would pass ${formatMoney(monthlyBudget)} within the hour. Nothing was sent. Stop or destroy something first, or ask the user to raise the budget.`;
  }
  return undefined;
}

/** Throws the refusal when a cap would be broken. */
export function checkCaps(c: CapCheck): void {
  const problem = capProblem(c);
  if (problem) throw new ToolError(problem);
}

/** "Budget: $41.20 left of $100.00 this month ($58.80 spent, $0.40/h running). Per-hour cap: $1.000/h." */
export function capsLine(caps: AgentCaps, spending: SpendingNow | undefined): string {
  const parts: string[] = [];
  if (caps.monthlyBudget !== undefined && spending)
    parts.push(
      `Budget: ${formatMoney(Math.max(0, caps.monthlyBudget - spending.spentThisMonth))} left of ${formatMoney(caps.monthlyBudget)} this month (${formatMoney(spending.spentThisMonth)} spent, ${rate(Math.max(0, spending.ratePerHour))} running).`,
    );
  else parts.push('Budget: none set.');
  parts.push(caps.maxDphTotal !== undefined ? `Per-hour cap: ${rate(caps.maxDphTotal)}.` : 'Per-hour cap: none set.');
  return parts.join(' ');
}
