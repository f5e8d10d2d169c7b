// Closing the simulator ends what an instance's onstart left running, including the onstart of an
// instance that was stopped a moment before (whose kill is scheduled 1.5 s later): otherwise its
// writes raced the removal of the instance folders and close() failed with ENOTEMPTY.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { instanceHome } from '../../../src/sim/sandbox';
import { startHarness } from '../api/helpers';
import { waitFor } from '../../kit/wait';

test('close() right after an instance stopped ends its onstart before removing the instance folders', async () => {
  const h = await startHarness({ bootSeconds: 1 });
  let closed = false;
  try {
    await h.ctl.runOnstart(true);
    const api = h.client();
    const offer = h.sim.state.offers.find((o) => o.rentable && o.verified && !o.rented && !o.taken)!;
    // A busy writer, as the idle guard's watchdog is when it records the stop it just made.
    const onstart = 'mkdir -p "$HOME/w"; while :; do i=0; while [ $i -lt 20 ]; do echo x > "$HOME/w/f$i"; i=$((i+1)); done; done';
    const { new_contract: id } = await api.createInstance(offer.id, { image: 'sim/base:1', runtype: 'ssh_direct', label: 'writer', onstart });
    await h.ctl.finishBoot(id);
    const home = instanceHome(h.sim.state, id);
    await waitFor(() => existsSync(join(home, 'w', 'f19')), 15_000, 'the onstart writes');
    await api.setInstanceState(id, 'stopped');
    closed = true;
    await h.close(); // rejected with ENOTEMPTY before the fix, while the writer still ran
    assert.equal(existsSync(home), false, 'the instance folder is gone');
  } finally {
    if (!closed) await h.close();
  }
});
