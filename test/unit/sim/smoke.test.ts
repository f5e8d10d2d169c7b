import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anOffer, start } from './helpers';

test('create, boot on the sim clock, stop, start, destroy', async () => {
  const c = await start();
  try {
    const offer = await anOffer(c);
    const cr = await c.call('PUT', `/api/v0/asks/${offer.id}/`, { image: 'ubuntu:22.04', runtype: 'ssh_direct' });
    assert.equal(cr.status, 200);
    assert.equal(cr.type, 'application/json');
    const id = cr.json.new_contract;
    let s = await c.call('GET', `/api/v0/instances/${id}/`);
    assert.equal(s.json.instances.actual_status, null);
    await c.ctl.advance(10);
    s = await c.call('GET', `/api/v0/instances/${id}/`);
    assert.equal(s.json.instances.actual_status, 'loading');
    await c.ctl.advance(60);
    s = await c.call('GET', `/api/v0/instances/${id}/`);
    assert.equal(s.json.instances.actual_status, 'running');
    assert.ok(s.json.instances.ssh_port >= 10000);
    assert.equal(s.json.instances.ports['22/tcp'][0].HostIp, '0.0.0.0');
    assert.equal((await c.call('PUT', `/api/v0/instances/${id}/`, { state: 'stopped' })).status, 200);
    s = await c.call('GET', `/api/v0/instances/${id}/`);
    assert.equal(s.json.instances.actual_status, 'exited');
    assert.equal(s.json.instances.intended_status, 'stopped');
    assert.equal(s.json.instances.ssh_port, 0);
    assert.equal((await c.call('DELETE', `/api/v0/instances/${id}/`)).status, 200);
    const l = await c.call('GET', '/api/v0/instances/');
    assert.equal(l.json.instances_found, 0);
  } finally {
    await c.sim.close();
  }
});
