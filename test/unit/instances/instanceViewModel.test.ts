import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Instance, Offer } from '../../../src/api/types';
import { instanceContextValue, instanceRow, jupyterUrl } from '../../../src/instances/instanceViewModel';
import { detailLabel, instanceDetails } from '../../../src/instances/detailRows';
import { formatGpuRam, stateCategory } from '../../../src/core/instanceWords';
import { md } from '../../../src/core/textFormat';
import { offerRow } from '../../../src/offers/offerRow';
import { sshCommand } from '../../../src/ssh/sshCommand';
import { offerPickDetail } from '../../../src/instances/instanceDetails';

const TOKEN = 'tok-abcdef123456';

function make(p: Partial<Instance>): Instance {
  return { id: 42, state: 'running', actual_status: 'running', intended_status: 'running', ...p };
}

test('row: label or #id, GPUs, state, $/h; stable id; state icon and colour', () => {
  const r = instanceRow(make({ label: 'trainer', num_gpus: 2, gpu_name: 'RTX 4090', dph_total: 0.8123, uptime_mins: 17 }));
  assert.equal(r.id, 'instance:42');
  assert.equal(r.label, 'trainer');
  assert.equal(r.description, '$0.81/h · 2× RTX 4090');
  assert.equal(
    instanceRow(make({ state: 'stopped', dph_total: 1, storage_cost: 0.04, num_gpus: 1, gpu_name: 'A100' })).description,
    'stopped $0.04/h · 1× A100',
  );
  assert.equal(r.icon, 'vm-running');
  assert.equal(r.color, 'testing.iconPassed');
  assert.equal(r.contextValue, 'instance.running');
  const again = instanceRow(make({ label: 'trainer', num_gpus: 2, gpu_name: 'RTX 4090', dph_total: 0.8123, uptime_mins: 99 }));
  assert.equal(again.id, r.id, 'uptime never enters the id');
  assert.equal(instanceRow(make({ label: '  ' })).label, '#42');
});

test('state categories and contextValue with the jupyter suffix', () => {
  assert.equal(stateCategory(make({ state: 'provisioning', actual_status: null })), 'loading');
  assert.equal(stateCategory(make({ state: 'exited' })), 'failed');
  assert.equal(stateCategory(make({ state: 'offline' })), 'failed');
  assert.equal(stateCategory(make({ state: 'unknown' })), 'failed');
  assert.equal(stateCategory(make({ state: 'stopped' })), 'stopped');
  assert.equal(stateCategory(make({ state: 'frozen' })), 'unknown');
  assert.equal(instanceContextValue(make({ state: 'stopped', image_runtype: 'jupyter_direc ssh_direc' })), 'instance.stopped.jupyter');
  assert.equal(instanceContextValue(make({ state: 'exited' })), 'instance.failed');
  const failed = instanceRow(make({ state: 'exited' }));
  assert.equal(failed.icon, 'error');
  assert.equal(failed.color, 'errorForeground');
});

test('pending action replaces the state text', () => {
  const r = instanceRow(make({ dph_total: 1 }), 'Stopping…');
  assert.equal(r.description, 'Stopping… $1.00/h');
  assert.equal(r.icon, 'loading~spin');
});

test('tooltip has GPU RAM, CPU, disk, location, reliability, SSH, image and costs; escapes Markdown', () => {
  const r = instanceRow(
    make({
      label: 'a*b',
      gpu_ram: 24000,
      cpu_name: 'EPYC',
      cpu_cores_effective: 8,
      disk_space: 50,
      geolocation: 'Norway, NO',
      reliability2: 0.991,
      ssh_host: 'ssh5.example',
      ssh_port: 41022,
      image_uuid: 'pytorch/pytorch',
      dph_total: 0.5,
      storage_cost: 0.02,
      uptime_mins: 90,
    }),
  );
  for (const part of [
    '24 GB',
    'EPYC',
    '50 GB',
    'Norway',
    '99\\.1%',
    'ssh5\\.example\\:41022',
    'pytorch/pytorch',
    'compute $0.48/h',
    'storage $0.02/h',
    'total $0.50/h',
    '1\\.5 h',
  ]) {
    assert.ok(r.tooltip.includes(part), `tooltip has ${part}`);
  }
  assert.ok(r.tooltip.includes('a\\*b'));
});

test('details list every set field, never the jupyter token; env values are masked', () => {
  const d = instanceDetails(
    make({ jupyter_token: TOKEN, extra_env: [['HF_TOKEN', 'hf_secret_value']], ssh_port: 22, label: null, gpu_util: 0, start_date: 1700000000 }),
  );
  const keys = d.map((x) => x.key);
  assert.ok(keys.includes('jupyter_token'));
  assert.ok(keys.includes('gpu_util'), 'zero is a set value');
  assert.ok(!keys.includes('label'), 'null is not shown');
  const text = JSON.stringify(d);
  assert.ok(!text.includes(TOKEN));
  assert.ok(!text.includes('hf_secret_value'));
  assert.equal(d.find((x) => x.key === 'jupyter_token')?.secret, true);
  assert.equal(d.find((x) => x.key === 'start_date')?.value, '2023-11-14T22:13:20Z');
});

test('details are labelled in words, the API name kept as the key; a field without words keeps its name', () => {
  const d = instanceDetails(
    make({ gpu_name: 'RTX 4090', num_gpus: 2, dph_total: 0.8123, disk_space: 40, geolocation: 'Norway', gpu_mem_bw: 900, ssh_port: 41022 }),
  );
  const label = (key: string) => d.find((x) => x.key === key)?.label;
  assert.equal(label('gpu_name'), 'GPU');
  assert.equal(label('num_gpus'), 'GPUs');
  assert.equal(label('dph_total'), 'Price per hour ($)');
  assert.equal(label('disk_space'), 'Disk (GB)');
  assert.equal(label('geolocation'), 'Location');
  assert.equal(label('ssh_port'), 'SSH port');
  assert.equal(label('id'), 'Instance ID');
  assert.equal(label('gpu_mem_bw'), 'gpu_mem_bw', 'a rare field keeps the name its documentation uses');
  assert.equal(d.find((x) => x.key === 'dph_total')?.value, '0.8123');
  // Words for the fields people read most: every label is unique, none is a raw snake_case name.
  const common = [
    'id',
    'actual_status',
    'label',
    'image_uuid',
    'onstart',
    'status_msg',
    'ssh_host',
    'ssh_port',
    'start_date',
    'end_date',
    'cpu_name',
    'cpu_ram',
    'gpu_name',
    'num_gpus',
    'gpu_ram',
    'gpu_util',
    'disk_space',
    'disk_usage',
    'public_ipaddr',
    'geolocation',
    'reliability2',
    'dph_total',
    'dph_base',
    'min_bid',
    'is_bid',
  ];
  const words = common.map(detailLabel);
  for (const [i, w] of words.entries()) assert.doesNotMatch(w, /_/, `${common[i]} has words`);
  assert.equal(new Set(words).size, words.length, 'no two fields read the same');
});

test('detail values mask what this window knows is secret and secret flags: what Copy Value copies', () => {
  const known = 'tmpl-secret-Value-123';
  const d = instanceDetails(
    make({ jupyter_token: TOKEN, onstart: `docker login -p s3cr3tPassw0rd ghcr.io; echo ${known}; echo ${TOKEN}`, image_args: ['--token', 'abc123456789'] }),
    [known],
  );
  const text = JSON.stringify(d);
  for (const secret of [known, TOKEN, 's3cr3tPassw0rd', 'abc123456789']) assert.ok(!text.includes(secret), `${secret} in ${text}`);
  assert.match(d.find((x) => x.key === 'onstart')?.value ?? '', /^docker login -p \*\*\* ghcr\.io; echo \*\*\*; echo \*\*\*$/);
  const token = d.find((x) => x.key === 'jupyter_token')!;
  assert.deepEqual([token.label, token.secret], ['Jupyter token', true]);
  // Only the spec's fields are rows: a record that carries the create answer's instance_api_key shows none of it.
  const withKey = instanceDetails({ ...make({ gpu_name: 'A100' }), instance_api_key: 'iak-secret-1234567890' } as Instance);
  assert.ok(!JSON.stringify(withKey).includes('iak-secret'), JSON.stringify(withKey));
});

test('ssh command and jupyter url', () => {
  assert.equal(sshCommand(make({ ssh_host: 'ssh5.example', ssh_port: 41022 })), 'ssh -p 41022 root@ssh5.example');
  assert.equal(sshCommand(make({ ssh_host: 'ssh5.example', ssh_port: 0 })), undefined, 'stopped instances report port 0');
  const j = make({
    public_ipaddr: '203.0.113.5',
    jupyter_token: 'a b',
    ports: [
      { container: '8080/tcp', hostPort: 40080 },
      { container: '22/tcp', hostPort: 40022 },
    ],
  });
  assert.equal(jupyterUrl(j), 'http://203.0.113.5:40080/?token=a%20b');
  assert.equal(jupyterUrl(make({ public_ipaddr: '203.0.113.5', jupyter_token: 'x', ports: null })), undefined);
});

test('a long generated label is shortened in the row (its end kept) so price and state stay in view', () => {
  const long = make({ label: 'demo-workspace-pytorch-z80p', state: 'stopped', dph_total: 1, storage_cost: 0.04, num_gpus: 1, gpu_name: 'RTX 4090' });
  const r = instanceRow(long);
  assert.equal(r.label, 'demo…ch-z80p');
  assert.ok([...r.label].length <= 12);
  assert.ok(r.description.startsWith('stopped $0.04/h · '), '"stopped" in words, then the price, before anything else');
  assert.match(r.tooltip, /demo\\-workspace\\-pytorch\\-z80p/, 'the tooltip keeps the full label');
  assert.equal(instanceRow(make({ label: 'pytorch-ab12' })).label, 'pytorch-ab12', 'short labels unchanged');
});

test('one GPU RAM formatter: offer row, offer pick list and instance tooltip agree', () => {
  assert.equal(formatGpuRam(24_576), '24.6 GB');
  assert.equal(formatGpuRam(80_000), '80 GB');
  assert.equal(formatGpuRam(0), undefined);
  const o: Offer = { id: 5, num_gpus: 1, gpu_name: 'RTX 4090', dph_total: 0.4, gpu_ram: 24_576, reliability: 0.98, geolocation: 'US' };
  assert.match(offerRow(o).description, / 24\.6 GB /);
  assert.match(offerPickDetail(o), /24\.6 GB per GPU/);
  assert.match(offerRow(o).tooltip, /GPU RAM: 24\\?\.6 GB per GPU/);
  assert.match(instanceRow(make({ gpu_ram: 24_576 })).tooltip, /GPU RAM: 24\\?\.6 GB per GPU/);
  assert.doesNotMatch(offerPickDetail(o), /25 GB/);
});

test('md: server text in a tooltip cannot become a link, an image, HTML or an autolink', () => {
  const hostile = 'see [x](https://evil.example/p) ![i](https://evil.example/t.png) <img src=x> https://evil.example www.evil.example mail@evil.example';
  const out = md(hostile);
  // every Markdown/HTML trigger is escaped; a GFM autolink needs an unescaped "https:" or "www." and mail needs "@"
  assert.doesNotMatch(out, /(?<!\\)[[\]()<>!]/);
  assert.doesNotMatch(out, /https:/);
  assert.doesNotMatch(out, /www\./);
  assert.doesNotMatch(out, /(?<!\\)@/);
  assert.equal(out.replace(/\\(.)/g, '$1'), hostile, 'unescaping gives the text back');
});
