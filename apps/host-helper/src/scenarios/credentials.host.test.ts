// Real-host proof of the two credential files: the operator env file the driver never touches, and the managed gateway password.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { revisionLayout, sha256Hex } from '@occ-ssh/markers';
import type { AgentOwner, OperationArgs } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { accountOf, activateArgs, exists, gatewayEnviron, layoutOf, ok, owner, prepareArgs, shell, statOf, unitProperty, unitState } from '@occ-ssh/test-support';

const PASSWORD_REF = { source: 'env', provider: 'default', id: 'OPENCLAW_GATEWAY_PASSWORD' };

/** A trusted-proxy document, with or without the opt-in managed loopback password. */
function proxyArgs(who: AgentOwner, number: number, withPassword: boolean): OperationArgs<'prepare-revision'> {
  const auth = { mode: 'trusted-proxy', trustedProxy: { userHeader: 'x-forwarded-user' }, ...(withPassword ? { password: PASSWORD_REF } : {}) };
  const text = `${JSON.stringify({ gateway: { auth, bind: 'loopback', mode: 'local' } }, null, 2)}\n`;
  return {
    owner: who,
    revision: { id: `rev-${who.agent.id}-${number}`, number },
    harness: 'openclaw/embedded',
    configuration: { document: text, hash: sha256Hex(text), auth: withPassword ? 'trusted-proxy-password' : 'trusted-proxy' },
  };
}

describe('credential files on a real host', () => {
  let host: TestHost;
  const ensure = (who: AgentOwner) => ok(host, 'ensure-namespace', { namespace: who.namespace });
  before(async () => {
    host = await startTestHost({ name: 'hcred' });
  });
  after(() => host?.down());

  test('the operator env file is loaded by systemd as root, never read, written or removed by prepare, activate, stop or retire, and goes with the Namespace', async () => {
    const who = owner('envf', 'envf');
    const layout = layoutOf(who);
    const env = layout.operatorEnvFile;
    const [rev1, rev2] = [prepareArgs(who, 1), prepareArgs(who, 2)];
    const fingerprint = () => shell(host, `sha256sum ${env}; stat -c '%U:%G %a %s %i %Y' ${env}`);
    const password = () => shell(host, `sha256sum ${layout.passwordFile}; stat -c '%U:%G %a %i %Y' ${layout.passwordFile}`);
    const age = async () => {
      await host.run(['touch', '-a', '-d', '2001-01-01 00:00:00', env]);
      return shell(host, `stat -c %X ${env}`);
    };
    await ensure(who);
    await ok(host, 'prepare-revision', rev1);
    await host.run(['install', '-m', '600', '-o', 'root', '-g', 'root', '/dev/stdin', env], { input: 'OCC_GAP_FOO=bar\n' });
    const [print, secret, aged] = [await fingerprint(), await password(), await age()];

    await ok(host, 'prepare-revision', rev2);
    assert.equal(await shell(host, `stat -c %X ${env}`), aged, 'prepare did not even read it');
    await ok(host, 'activate-revision', activateArgs(rev1));
    assert.ok((await gatewayEnviron(host, who)).includes('OCC_GAP_FOO=bar'));
    assert.notEqual((await host.exec(['runuser', '-u', accountOf(who), '--', 'cat', env])).code, 0, 'only root (systemd) can read it');
    assert.equal(await fingerprint(), print);

    await shell(host, `printf 'OCC_GAP_FOO=baz\\n' > ${env}`);
    await host.run(['systemctl', 'restart', layout.unitName]);
    assert.ok((await gatewayEnviron(host, who)).includes('OCC_GAP_FOO=baz'), 'a restart loads changed values without a new revision');
    const seen = await ok(host, 'verify-revision', { owner: who, revision: rev1.revision });
    assert.deepEqual([seen.current, seen.served], [true, true], 'the same immutable revision is still the served one');

    const [changed, agedAgain] = [await fingerprint(), await age()];
    await ok(host, 'stop-revision', { owner: who, revision: rev1.revision });
    await ok(host, 'retire-revision', { owner: who, revision: rev2.revision });
    await ok(host, 'retire-revision', { owner: who, revision: rev1.revision });
    assert.equal(await shell(host, `stat -c %X ${env}`), agedAgain, 'stop and retire did not read it');
    assert.equal(await fingerprint(), changed);
    assert.equal(await password(), secret, 'the managed password was never rotated');
    assert.equal((await host.exec(['getent', 'passwd', accountOf(who)])).code, 0, 'the account persists across retirement');
    for (const path of [layout.home, layout.state, layout.passwordFile]) assert.equal(await exists(host, path), true, path);
    await host.run(['cat', env]);
    assert.notEqual(await shell(host, `stat -c %X ${env}`), agedAgain, 'control: a read does move the access time');

    await ok(host, 'delete-namespace', { namespace: who.namespace });
    assert.equal(await exists(host, env), false);
  });

  test('gateway-password.env exists only when needed; trusted proxy can opt into the same loopback password', async () => {
    const who = owner('proxy', 'proxy');
    const layout = layoutOf(who);
    const [plain, withPassword] = [proxyArgs(who, 1, false), proxyArgs(who, 2, true)];
    await ensure(who);
    await ok(host, 'prepare-revision', plain);
    await ok(host, 'activate-revision', activateArgs(plain));
    assert.equal(await exists(host, layout.passwordFile), false);
    assert.deepEqual(await unitProperty(host, who, 'EnvironmentFiles'), [`${layout.launchEnvFile} (ignore_errors=no)`, `${layout.operatorEnvFile} (ignore_errors=yes)`]);
    assert.equal((await gatewayEnviron(host, who)).filter((entry) => entry.startsWith('OPENCLAW_GATEWAY_PASSWORD=')).length, 0);
    await ok(host, 'prepare-revision', withPassword);
    assert.equal(await statOf(host, layout.passwordFile), 'root:root 600 regular file');
    await ok(host, 'activate-revision', activateArgs(withPassword));
    assert.deepEqual(await unitProperty(host, who, 'EnvironmentFiles'), [
      `${layout.passwordFile} (ignore_errors=no)`,
      `${layout.launchEnvFile} (ignore_errors=no)`,
      `${layout.operatorEnvFile} (ignore_errors=yes)`,
    ]);
    assert.ok((await gatewayEnviron(host, who)).includes((await host.run(['cat', layout.passwordFile])).trim()));
    assert.deepEqual(await ok(host, 'retire-revision', { owner: who, revision: withPassword.revision }), { removed: true, wasCurrent: true });
    assert.deepEqual([await unitState(host, who), (await host.exec(['systemctl', 'is-enabled', layout.unitName])).stdout.trim()], ['inactive', 'disabled']);
    for (const path of [layout.current, layout.served, layout.launchEnvFile]) assert.equal(await exists(host, path), false, path);
    for (const path of [revisionLayout(layout.dir, plain.revision.id).config, layout.passwordFile, layout.state]) assert.equal(await exists(host, path), true, path);
  });
});
