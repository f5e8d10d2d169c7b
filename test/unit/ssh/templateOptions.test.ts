// What an instance's template asked for when the create flow's recorded options are gone (another
// VS Code profile, state lost, or pruned): the plain terminal (gpuRental.ssh.manageConfig off)
// logs in as the user a managed entry written earlier names, else root; a remoteFolder is only
// ever recorded, so Connect then opens an empty remote window. The recorded options always win.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Instance } from '../../../src/api/types';
import { SshConfigWriter } from '../../../src/ssh/sshConfigWriter';
import { inTempDir } from '../../kit/temp';
import { templateSsh } from './templateEntry';

const inst: Instance = {
  id: 31,
  state: 'running',
  actual_status: 'running',
  label: 'train',
  image_runtype: 'ssh ssh_proxy',
  ssh_host: 'ssh5.example.net',
  ssh_port: 40031,
};

test("with the recorded options gone, the template's user comes from the managed entry; without an entry it is root; remoteFolder is none", () =>
  inTempDir('gpu-ssh-topts-', async (home) => {
    mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
    const w = new SshConfigWriter({ home, identityFile: '~/.ssh/setting_ed25519' });
    assert.deepEqual(await w.templateOptions(inst.id, undefined), {}, 'no record, no entry: nothing known (the user is root)');
    await w.writeEntry(inst, templateSsh);
    const lost = await w.templateOptions(inst.id, undefined);
    assert.equal(lost.user, 'ubuntu', "the entry's User");
    assert.equal(lost.identityFile, join(home, '.ssh', 'template_ed25519'), "the entry's template key");
    assert.deepEqual(
      lost.localForwards?.map((f) => [f.localPort, f.remotePort]),
      [
        [8888, 8888],
        [6006, 16006],
      ],
    );
    assert.equal(lost.remoteFolder, undefined, 'no remote folder: an empty window');
    // Recorded options win over whatever the entry says.
    assert.deepEqual(await w.templateOptions(inst.id, { user: 'alice', remoteFolder: '/data' }), { user: 'alice', remoteFolder: '/data' });
    // An entry written without a template names root.
    await w.writeEntry({ ...inst, id: 32 }, undefined);
    assert.equal((await w.templateOptions(32, undefined)).user, 'root');
  }));
