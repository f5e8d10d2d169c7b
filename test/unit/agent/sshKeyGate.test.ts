// The key check before an agent's rent: an account without one of this machine's SSH keys gets a
// clear refusal that says how to add one, and nothing is rented or sent; with the key it quotes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invokeTool } from '../../../src/agent/toolCatalogue';
import { flowSim, puts, useFlowSim } from '../create/flowHarness';
import { agentHarness } from './agentHarness';
import { generateEd25519 } from '../../../src/ssh/keygen';

useFlowSim();

const writes = async () => (await flowSim.control.requests()).filter((r) => r.method !== 'GET').length;

test('no key of this machine on the account: the quote is refused with how to add one, nothing sent', async () => {
  const h = agentHarness({ accountKey: false });
  const r = await invokeTool(h.ports, 'rent', { template: '.gpu/test.json' });
  assert.equal(r.isError, true);
  assert.match(
    r.text,
    /^Nothing was rented: your account has no SSH public key whose private key is on this machine, .*This machine has \S+id_ed25519\.pub, which is not on your account\. Add one with the test kit\. Then rent again\.$/,
  );
  assert.equal(await puts(), 0);
  assert.equal(await writes(), 0, 'nothing but reads sent');
});

test("a key of the account's, but not on this machine, is no key here", async () => {
  const h = agentHarness({ accountKey: false });
  await h.api.addSshKey(generateEd25519('elsewhere').public);
  const r = await invokeTool(h.ports, 'rent', { image: 'pytorch/pytorch:latest' });
  assert.match(r.text, /no SSH public key whose private key is on this machine/);
  assert.equal(await puts(), 0);
});

test('with the key on the account, the rent quotes', async () => {
  const h = agentHarness();
  const r = await invokeTool(h.ports, 'rent', { image: 'pytorch/pytorch:latest' });
  assert.equal(r.isError, undefined, r.text);
  assert.match(r.text, /^Quote q-/);
});
