// The one SSH address rule (service-today section 4) and every consumer of it: the entry the
// writer makes (proven with the real OpenSSH client, `ssh -G`), its `<alias>-proxy` fallback for
// direct instances, Copy SSH Command and the tooltip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { needs } from '../tools';
import type { Instance } from '../../../src/api/types';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';
import { PROXY_ALIAS_SUFFIX } from '../../../src/ssh/sshEntryFormat';
import { inTempDir } from '../../kit/temp';
import { describeSshAddress, proxyRoute, sshAddress } from '../../../src/ssh/address';
import { instanceTooltip } from '../../../src/instances/instanceViewModel';
import { sshCommand } from '../../../src/ssh/sshCommand';

const base: Instance = { id: 9, actual_status: 'running', state: 'running', label: 'job', ssh_host: 'ssh4.example.net', ssh_port: 30010 };
const direct: Instance = {
  ...base,
  id: 11,
  image_runtype: 'ssh ssh_direc ssh_proxy',
  public_ipaddr: '203.0.113.7',
  ports: [{ container: '22/tcp', hostPort: 41022 }],
};
const proxy: Instance = { ...base, id: 12, image_runtype: 'ssh ssh_proxy' };
const jupyterProxy: Instance = { ...base, id: 13, image_runtype: 'jupyter ssh_proxy' };
const jupyterDirect: Instance = { ...direct, id: 14, image_runtype: 'jupyter jupyter_direc ssh_direc ssh_proxy' };

test('the three rules: direct 22/tcp on public_ipaddr; proxy ssh_host:ssh_port; +1 when image_runtype contains jupyter', () => {
  assert.deepEqual(sshAddress(direct), {
    host: '203.0.113.7',
    port: 41022,
    kind: 'direct',
    fallback: { host: 'ssh4.example.net', port: 30010, kind: 'proxy' },
  });
  assert.deepEqual(sshAddress(proxy), { host: 'ssh4.example.net', port: 30010, kind: 'proxy' });
  assert.deepEqual(sshAddress(jupyterProxy), { host: 'ssh4.example.net', port: 30011, kind: 'jupyter-proxy' });
  // rule 1 first: a direct Jupyter instance is reached on its 22/tcp mapping; its proxy fallback is +1
  assert.equal(sshAddress(jupyterDirect)!.port, 41022);
  assert.equal(sshAddress(jupyterDirect)!.fallback!.port, 30011);
  // no address while not running (ports null, ssh_port 0)
  assert.equal(sshAddress({ ...direct, ports: null, ssh_port: 0 }), undefined);
  assert.equal(describeSshAddress(sshAddress(direct)!), '203.0.113.7:41022 (direct; proxy ssh4.example.net:30010)');
});

test('the edges of the rule: trimmed hosts, bad ports, a Jupyter port past 65535, only 22/tcp is direct', () => {
  assert.deepEqual(proxyRoute({ ...proxy, ssh_host: '  ssh4.example.net \n' }), { host: 'ssh4.example.net', port: 30010, kind: 'proxy' });
  assert.equal(proxyRoute({ ...proxy, ssh_host: '   ' }), undefined);
  assert.equal(proxyRoute({ ...proxy, ssh_host: undefined }), undefined);
  for (const p of [0, -5, 65536, 22.5, undefined]) assert.equal(proxyRoute({ ...proxy, ssh_port: p as number }), undefined, String(p));
  assert.deepEqual(proxyRoute({ ...proxy, ssh_port: 65535 }), { host: 'ssh4.example.net', port: 65535, kind: 'proxy' });
  assert.equal(proxyRoute({ ...jupyterProxy, ssh_port: 65535 }), undefined, '+1 would leave the port range');
  assert.deepEqual(proxyRoute({ ...proxy, image_runtype: undefined }), { host: 'ssh4.example.net', port: 30010, kind: 'proxy' });
  assert.equal(proxyRoute({ ...proxy, image_runtype: 'args jupyter_direc' })!.port, 30011, 'by substring');
  // direct: only the 22/tcp mapping, on a (trimmed) public address, with a valid host port
  assert.deepEqual(sshAddress({ ...direct, public_ipaddr: ' 203.0.113.7 ' }), sshAddress(direct));
  assert.deepEqual(sshAddress({ ...direct, ports: [{ container: '8080/tcp', hostPort: 41080 }] }), sshAddress(proxy));
  assert.deepEqual(
    sshAddress({
      ...direct,
      ports: [
        { container: '8080/tcp', hostPort: 41080 },
        { container: '22/tcp', hostPort: 41022 },
      ],
    })!.port,
    41022,
  );
  assert.deepEqual(sshAddress({ ...direct, public_ipaddr: '  ' }), sshAddress(proxy), 'no public address: the proxy');
  assert.deepEqual(sshAddress({ ...direct, public_ipaddr: undefined }), sshAddress(proxy));
  assert.deepEqual(sshAddress({ ...direct, ports: [{ container: '22/tcp', hostPort: 0 }] }), sshAddress(proxy), 'an unusable direct port: the proxy');
  assert.deepEqual(
    sshAddress({ ...direct, ssh_host: undefined }),
    { host: '203.0.113.7', port: 41022, kind: 'direct' },
    'direct without a proxy route has no fallback',
  );
  assert.equal(describeSshAddress(sshAddress(proxy)!), 'ssh4.example.net:30010 (proxy)');
  assert.equal(describeSshAddress(sshAddress(jupyterProxy)!), 'ssh4.example.net:30011 (Jupyter proxy)');
  assert.equal(describeSshAddress({ host: '203.0.113.7', port: 41022, kind: 'direct' }), '203.0.113.7:41022 (direct)');
});

test('Copy SSH Command and the tooltip use the same rule', () => {
  assert.equal(sshCommand(direct), 'ssh -p 41022 root@203.0.113.7');
  assert.equal(sshCommand(jupyterProxy), 'ssh -p 30011 root@ssh4.example.net');
  assert.match(instanceTooltip(jupyterProxy), /ssh4\\\.example\\\.net\\:30011 \\\(Jupyter proxy\\\)/);
  // hostile server text never reaches the command
  assert.equal(sshCommand({ ...direct, public_ipaddr: '1.2.3.4; rm -rf ~' }), undefined);
});

test("ssh -G: the entry of each kind resolves to the rule's address; a direct entry also gets <alias>-proxy", { skip: needs('ssh') }, async () => {
  await inTempDir('gpu-ssh-addr-', async (home) => {
    mkdirSync(join(home, '.ssh'), { mode: 0o700 });
    const user = join(home, '.ssh', 'config');
    writeFileSync(user, '', { mode: 0o600 });
    const w = new SshConfigWriter({ home });
    await w.addInclude();
    const g = (alias: string) => {
      const out = execFileSync('ssh', ['-G', alias, '-F', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const get = (k: string) =>
        out
          .split('\n')
          .find((l) => l.startsWith(k + ' '))
          ?.slice(k.length + 1);
      return [get('hostname'), get('port'), get('user')];
    };
    const a = await w.writeEntry(direct, {});
    assert.deepEqual(g(a), ['203.0.113.7', '41022', 'root']);
    assert.deepEqual(g(a + PROXY_ALIAS_SUFFIX), ['ssh4.example.net', '30010', 'root']);
    assert.deepEqual(g(await w.writeEntry(proxy, {})), ['ssh4.example.net', '30010', 'root']);
    assert.deepEqual(g(await w.writeEntry(jupyterProxy, {})), ['ssh4.example.net', '30011', 'root']);
    // parsed back: the proxy route is part of the entry; a changed proxy port is an update
    const e = (await w.entries()).find((x) => x.id === direct.id)!;
    assert.deepEqual(e.proxy, { hostName: 'ssh4.example.net', port: 30010 });
    const res = await w.reconcile([{ ...direct, ssh_port: 30020 }, proxy, jupyterProxy], {});
    assert.deepEqual(res.updated, [direct.id]);
    assert.deepEqual(g(a + PROXY_ALIAS_SUFFIX), ['ssh4.example.net', '30020', 'root']);
  });
});
