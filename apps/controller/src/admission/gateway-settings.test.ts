// Gateway settings the gateway cannot start or answer readiness with: refused by document admission, keyed to the exact path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { refusedDocument } from '../../test/admission.js';
import { sshGatewayConfigurationDocument } from './document.js';

const POLICY_KEY = 'configuration.plugins.entries.codex.config.appServer.approvalPolicy';
const codex = (approvalPolicy: unknown) => ({ plugins: { entries: { codex: { enabled: true, config: { appServer: { approvalPolicy } } } } } });

/** A refusal keyed to the exact path, whose message starts with it. */
function refused(configuration: unknown, key: string): ComputeError {
  const error = refusedDocument(configuration, key.slice('configuration.'.length));
  assert.ok(error.message.startsWith(`${key}: `), error.message);
  return error;
}

describe('gateway.tls', () => {
  it('refuses enabled: true, whatever else the TLS settings say', () => {
    const error = refused({ gateway: { tls: { enabled: true } } }, 'configuration.gateway.tls.enabled');
    assert.match(error.message, /omitted or false/);
    refused({ gateway: { tls: { enabled: true, autoGenerate: true, certPath: '/etc/openclaw/tls/server.crt', keyPath: '/etc/openclaw/tls/server.key' } } }, 'configuration.gateway.tls.enabled');
  });
  it('refuses a non-boolean enabled and a non-object tls', () => {
    for (const enabled of ['true', 1, null, {}]) refused({ gateway: { tls: { enabled } } }, 'configuration.gateway.tls.enabled');
    for (const tls of [true, 'on', [], null]) refused({ gateway: { tls } }, 'configuration.gateway.tls');
  });
  it('admits tls omitted, empty, or with enabled false and its other fields', () => {
    for (const gateway of [{}, { tls: {} }, { tls: { enabled: false } }, { tls: { enabled: false, autoGenerate: false, certPath: '/etc/openclaw/tls/server.crt' } }]) {
      const { text } = sshGatewayConfigurationDocument({ gateway });
      assert.deepEqual(JSON.parse(text).gateway.tls, gateway.tls);
    }
  });
});

describe('the Codex app-server approvalPolicy', () => {
  it('refuses the retired "untrusted" at its exact key path, without echoing other values', () => {
    const error = refused(codex('untrusted'), POLICY_KEY);
    assert.match(error.message, /retired/);
  });
  it('admits the policies OpenClaw documents (never, on-request), an omitted one, and "untrusted" under another plugin', () => {
    for (const policy of ['never', 'on-request', undefined]) assert.doesNotThrow(() => sshGatewayConfigurationDocument(codex(policy)));
    assert.doesNotThrow(() => sshGatewayConfigurationDocument({ plugins: { entries: { other: { config: { appServer: { approvalPolicy: 'untrusted' } } } } } }));
    assert.doesNotThrow(() => sshGatewayConfigurationDocument({ plugins: { entries: { codex: { config: 'untrusted' } } } }));
  });
  it('refuses "untrusted" together with an admitted gateway.auth', () => {
    refused({ gateway: { auth: { mode: 'password' } }, ...codex('untrusted') }, POLICY_KEY);
  });
});
