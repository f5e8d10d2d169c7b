// The last 30 days as an SVG bar chart (no script, no network): one bar per UTC day, stacked by
// charge type, with the day's total in each bar's title (the tooltip).
import type { Spending } from './spending';
import { formatMoney } from '../core/rates';
import * as l10n from '@vscode/l10n';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const TYPES = ['instance', 'volume', 'serverless'];

export function spendingSvg(s: Spending, width = 640, height = 200): string {
  const pad = { l: 48, r: 8, t: 8, b: 24 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  const max = Math.max(0.01, ...s.days.map((d) => d.total));
  const bw = w / Math.max(1, s.days.length);
  const y = (v: number) => pad.t + h - (v / max) * h;
  const parts: string[] = [];
  parts.push(`<line class="axis" x1="${pad.l}" y1="${pad.t + h}" x2="${pad.l + w}" y2="${pad.t + h}"/>`);
  for (const f of [0, 0.5, 1]) parts.push(`<text class="tick" x="${pad.l - 4}" y="${y(max * f) + 4}" text-anchor="end">${esc(formatMoney(max * f))}</text>`);
  s.days.forEach((d, i) => {
    const x = pad.l + i * bw + 1;
    let base = 0;
    const types = [...TYPES, ...Object.keys(d.byType).filter((t) => !TYPES.includes(t))];
    const date = new Date(d.day * 1000).toISOString().slice(0, 10);
    const segs = types.flatMap((t) => {
      const v = d.byType[t] ?? 0;
      if (v <= 0) return [];
      const top = y(base + v);
      const rect = `<rect class="bar ${TYPES.includes(t) ? t : 'other'}" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${(y(base) - top).toFixed(1)}"/>`;
      base += v;
      return [rect];
    });
    parts.push(`<g><title>${esc(`${date}: ${formatMoney(d.total)}`)}</title>${segs.join('')}</g>`);
    if (i % 7 === 0 || i === s.days.length - 1)
      parts.push(`<text class="tick" x="${(x + bw / 2).toFixed(1)}" y="${height - 6}" text-anchor="middle">${date.slice(5)}</text>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(l10n.t('Spending per day, last 30 days'))}">${parts.join('')}</svg>`;
}

/** The chart's figures as a table (keyboard and screen readers reach them; the bars' colours are not needed): a row per day with a charge, by type. */
export function spendingDaysTable(s: Spending): string {
  const extra = [...new Set(s.days.flatMap((d) => Object.keys(d.byType)).filter((t) => !TYPES.includes(t)))];
  const cols: Array<[string, (d: Spending['days'][number]) => number]> = [
    ...TYPES.map((t): [string, (d: Spending['days'][number]) => number] => [`${t}s`, (d) => d.byType[t] ?? 0]),
    ...(extra.length ? [['other', (d) => extra.reduce((sum, t) => sum + (d.byType[t] ?? 0), 0)] as [string, (d: Spending['days'][number]) => number]] : []),
    ['total', (d) => d.total],
  ];
  const charged = s.days.filter((d) => d.total > 0);
  const head = `<tr><th scope="col">${esc(l10n.t('Day (UTC)'))}</th>${cols.map(([c]) => `<th scope="col" class="num">${esc(c)}</th>`).join('')}</tr>`;
  const rows = charged
    .map(
      (d) =>
        `<tr><th scope="row">${new Date(d.day * 1000).toISOString().slice(0, 10)}</th>${cols.map(([, v]) => `<td class="num">${esc(formatMoney(v(d)))}</td>`).join('')}</tr>`,
    )
    .join('');
  const body = charged.length ? rows : `<tr><td colspan="${cols.length + 1}">${esc(l10n.t('No charges in the last 30 days.'))}</td></tr>`;
  return `<details class="days"><summary>${esc(l10n.t('Spending per day (the chart as a table)'))}</summary><table aria-label="${esc(l10n.t('Spending per day, last 30 days'))}">${head}${body}</table></details>`;
}
