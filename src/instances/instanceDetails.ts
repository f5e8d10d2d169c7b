// Show Instance Details as a document: its path and its Markdown. Loaded with the command and the
// document provider (not on the activation path).
import type { Instance, Offer } from '../api/types';
import { currentRate, formatRate } from '../core/rates';
import { instanceDetails, maskSecrets } from './detailRows';
import { instanceName, perGpu, stateText } from '../core/instanceWords';
import { md, pct } from '../core/textFormat';
import * as l10n from '@vscode/l10n';

/** The Show Instance Details document's URI scheme (a read-only virtual document). */
export const DETAILS_SCHEME = 'gpu-rental-instance';

/** `/<id>/<name>.md`: the id finds the instance; the name is the editor tab's title. */
export function detailsPath(i: Pick<Instance, 'id' | 'label'>): string {
  const name =
    instanceName(i as Instance)
      .replace(/[\\/:*?"<>|#%\s]+/g, '-')
      .replace(/^-+|-+$/g, '') || `instance-${i.id}`;
  return `/${i.id}/${name}.md`;
}

/** The instance id of a details document path, or undefined. */
export function detailsId(path: string): number | undefined {
  const m = /^\/(\d+)\//.exec(path);
  return m ? Number(m[1]) : undefined;
}

/** Values longer than this leave the table for a folded section below it. */
export const LONG_VALUE_CHARS = 120;
/** A base64 run this long (the idle guard's packed onstart script) is shortened even there. */
const BLOB_RE = /[A-Za-z0-9+/]{100,}={0,2}/g;

/** A long value as the folded section shows it: base64 runs shortened to their length. */
export function foldBlobs(v: string): string {
  return v.replace(BLOB_RE, (b) => l10n.t('{0}…[{1} base64 characters]', b.slice(0, 12), b.length.toLocaleString('en-US')));
}

/**
 * The Show Instance Details document: every set field (secrets masked) as a Markdown table (its
 * words, the API's name, the value),
 * after what it has cost so far. Long values (the onstart script and its packed base64) are
 * folded below the table, so the table stays readable in the preview. Read-only, refreshed when
 * the instance changes. Every value comes from the service or the host: it is escaped (no
 * image, link, HTML or command link of theirs renders) or shown in a code block, and masked
 * (`secrets`: known secret values, such as the template secrets the client has sent).
 */
export function instanceDetailsMarkdown(
  i: Instance,
  spent?: string,
  guard?: { details: string[]; log?: string },
  secrets: ReadonlyArray<string | undefined> = [],
): string {
  const cell = (v: string) => md(v.replace(/\r?\n/g, ' '));
  const details = instanceDetails(i, secrets);
  const long = details.filter((d) => d.value.length > LONG_VALUE_CHARS);
  const rows = details.map(
    (d) =>
      `| ${d.label} | \`${d.key}\` | ${long.includes(d) ? l10n.t('{0} characters, folded below', d.value.length.toLocaleString('en-US')) : cell(d.value)} |`,
  );
  const folded = long.flatMap((d) => {
    const text = foldBlobs(d.value);
    const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    return [
      '<details>',
      l10n.t('<summary>{0} ({1}, {2} characters)</summary>', d.label, d.key, d.value.length.toLocaleString('en-US')),
      '',
      fence,
      text,
      fence,
      '',
      '</details>',
      '',
    ];
  });
  return [
    `# ${md(instanceName(i))} (#${i.id})`,
    '',
    [md(stateText(i) ?? ''), `${formatRate(currentRate(i))} now`, spent].filter(Boolean).join(' · '),
    '',
    ...guardSection(guard, secrets),
    l10n.t('| Field | API name | Value |'),
    '|---|---|---|',
    ...rows,
    '',
    ...folded,
  ].join('\n');
}

/** The idle guard's section: what the row's tooltip says, and the end of its guard.log. */
function guardSection(guard: { details: string[]; log?: string } | undefined, secrets: ReadonlyArray<string | undefined>): string[] {
  if (!guard || !guard.details.length) return [];
  return [
    l10n.t('## Idle guard'),
    '',
    ...guard.details.map((l) => `- ${md(maskSecrets(l, secrets))}`),
    '',
    ...(guard.log
      ? [
          l10n.t('Its log on the instance (`$TMPDIR/gpu-rental/guard.log`, last lines):'),
          '',
          '```text',
          maskSecrets(guard.log, secrets).replace(/`/g, "'"),
          '```',
          '',
        ]
      : []),
  ];
}

/** The detail line of an offer in a pick list (Create from Template, Rent This Offer). */
export function offerPickDetail(o: Offer): string {
  return [
    pct(o.reliability) && l10n.t('{0} reliable', pct(o.reliability)!),
    o.geolocation ?? undefined,
    perGpu(o.gpu_ram ?? o.gpu_totalram),
    typeof o.dlperf_per_dphtotal === 'number' ? `${o.dlperf_per_dphtotal.toFixed(0)} DLPerf/$` : undefined,
    l10n.t('offer {0}', o.id),
  ]
    .filter(Boolean)
    .join(' · ');
}
