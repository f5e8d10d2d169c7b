// Where Save to File proposes to save backup codes: the home folder, except in the demo.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { backupCodesSavePath } from '../../../src/account/backupCodesFile';

test('outside the demo: the home folder; in the demo: its workspace copy, else its temporary HOME', () => {
  assert.equal(backupCodesSavePath('/home/u'), '/home/u/gpu-rental-backup-codes.txt');
  assert.equal(
    backupCodesSavePath('/home/u', { demoWorkspace: '/tmp/gpu-rental-demo-1/demo-workspace', demoHome: () => assert.fail('not needed') }),
    '/tmp/gpu-rental-demo-1/demo-workspace/gpu-rental-backup-codes.txt',
  );
  assert.equal(backupCodesSavePath('/home/u', { demoHome: () => '/tmp/gpu-rental-demo-ssh-x' }), '/tmp/gpu-rental-demo-ssh-x/gpu-rental-backup-codes.txt');
});
