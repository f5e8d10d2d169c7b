import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { sortTemplates, templateFacts, templatePorts, templateSlug, workspaceTemplateFor } from '../../../src/create/serverTemplates';
import { loadTemplate } from '../../../src/create/templateValidation';
import { buildCreateRequest } from '../../../src/create/requestBuilder';
import type { ServerTemplate } from '../../../src/api/types';

const t = (over: Partial<ServerTemplate>): ServerTemplate => ({ id: 1, hash_id: 'abc123', name: 'x', image: 'img', ...over });

test('server templates: recommended first, then by name; facts show image, runtype, ports, onstart', () => {
  const sorted = sortTemplates([
    t({ id: 1, name: 'zeta' }),
    t({ id: 2, name: 'Alpha' }),
    t({ id: 3, name: 'beta', recommended: true }),
    t({ id: 4, name: 'alpha2', recommended: true }),
  ]);
  assert.deepEqual(
    sorted.map((x) => x.name),
    ['alpha2', 'beta', 'Alpha', 'zeta'],
  );
  const py = t({
    name: 'pytorch-cuda12',
    image: 'pytorch/pytorch',
    tag: '2.5.1',
    runtype: 'ssh_direct',
    env: '-p 8888:8888 -e PYTHONUNBUFFERED=1 -p 70000:1 -p 127.0.0.1:6006:6006 -p 9000:9000/udp',
    onstart: 'env >> /etc/environment',
  });
  assert.deepEqual(templatePorts(py), ['8888', '6006', '9000/udp']);
  assert.equal(templateFacts(py), 'pytorch/pytorch:2.5.1 · runtype ssh_direct · ports 8888, 6006, 9000/udp · onstart: env >> /etc/environment');
  assert.equal(templateSlug(py), 'pytorch-cuda12');
});

test('saved as a workspace template it references the hash, passes validation and rents by template_hash_id', async () => {
  const w = workspaceTemplateFor(
    t({ name: 'jupyter-lab', hash_id: 'a8a44c7363cbca20056020397e3bf072', recommended_disk_space: 15.5, runtype: 'jupyter_direct' }),
  );
  assert.deepEqual(w.instance, { template_hash_id: 'a8a44c7363cbca20056020397e3bf072', disk: 16 });
  const r = await loadTemplate(JSON.stringify(w), { workspaceFolder: '/w', env: {}, secret: async () => undefined, readFile: async () => undefined });
  assert.deepEqual(
    r.problems.filter((p) => p.severity === 'error'),
    [],
  );
  const req = buildCreateRequest(r.template!, 'jupyter-lab-1a2b');
  assert.equal(req.template_hash_id, 'a8a44c7363cbca20056020397e3bf072');
  assert.equal(req.image, undefined, 'the image comes from the service template');
});
