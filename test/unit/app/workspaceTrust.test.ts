// What the extension declares about where and how it runs (package.json: extensionKind,
// capabilities) matches what it does: every GPU Rental setting a workspace can set is ignored in
// Restricted Mode, the settings that are never read from a workspace are application-scoped, and
// reading a template in an untrusted workspace is refused with the reason the user sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manifest } from '../repoRoot';
import { USER_ONLY_SETTINGS } from '../../../src/core/userOnlySettings';
import { assertTemplatesReadable, MANAGE_TRUST, templatesRestrictedText } from '../../../src/create/templateTrust';

interface Manifest {
  extensionKind: string[];
  capabilities: {
    virtualWorkspaces: { supported: boolean; description: string };
    untrustedWorkspaces: { supported: boolean | 'limited'; description: string; restrictedConfigurations: string[] };
  };
  contributes: { configuration: { properties: Record<string, { scope?: string }> } };
}
const pkg = manifest<Manifest>();
const properties = pkg.contributes.configuration.properties;

/** Settings a workspace's .vscode/settings.json can set: any scope but application and machine. */
function workspaceSettable(props: Record<string, { scope?: string }>): string[] {
  return Object.entries(props)
    .filter(([, p]) => !['application', 'machine'].includes(p.scope ?? 'window'))
    .map(([k]) => k)
    .sort();
}

test('workspaceSettable: window, resource, language-overridable and machine-overridable can be set by a workspace', () => {
  assert.deepEqual(
    workspaceSettable({
      a: {},
      b: { scope: 'application' },
      c: { scope: 'machine' },
      d: { scope: 'resource' },
      e: { scope: 'machine-overridable' },
      f: { scope: 'language-overridable' },
    }),
    ['a', 'd', 'e', 'f'],
  );
});

test('Restricted Mode ignores every GPU Rental setting a workspace can set, and names only settings that exist', () => {
  const restricted = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
  assert.deepEqual([...restricted].sort(), workspaceSettable(properties), 'capabilities.untrustedWorkspaces.restrictedConfigurations in package.json');
});

test('the user-only settings are application-scoped, so no workspace (trusted or not) sets them', () => {
  for (const k of USER_ONLY_SETTINGS) assert.equal(properties[k]?.scope, 'application', k);
});

test('untrusted workspaces: limited support with a description; virtual workspaces: not supported, with the reason', () => {
  const { untrustedWorkspaces: u, virtualWorkspaces: v } = pkg.capabilities;
  assert.equal(u.supported, 'limited');
  assert.match(u.description, /template/i);
  assert.match(u.description, /settings/i);
  assert.equal(v.supported, false);
  assert.match(v.description, /file system/);
});

test('extensionKind: the UI side first (where SSH config and keys live), the workspace host when there is no UI side', () => {
  assert.deepEqual(pkg.extensionKind, ['ui', 'workspace']);
});

test('reading a template is refused in an untrusted workspace with the reason and the way out', () => {
  assert.doesNotThrow(() => assertTemplatesReadable(true));
  assert.throws(
    () => assertTemplatesReadable(false),
    (e: Error) => e.message === templatesRestrictedText() && e.name === 'TemplatesRestrictedError',
  );
  assert.match(templatesRestrictedText(), /Restricted Mode.*trust this folder/);
  assert.equal(MANAGE_TRUST.command, 'workbench.trust.manage');
});
