// Per-Agent private account names: first 19 characters of runtime.user, `-`, 12 hex of SHA-256(<ns>:<agent>).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ACCOUNT_PREFIX_LENGTH, accountName } from './account.js';

const NS = 'ns-01HZX3';
const AGENT = 'agent-7f3a';
const pairHash = (namespaceId: string, agentId: string): string =>
  createHash('sha256')
    .update(Buffer.from(`${namespaceId}:${agentId}`, 'utf8'))
    .digest('hex')
    .slice(0, 12);

describe('accountName', () => {
  it('short runtime.user is kept whole', () => {
    assert.equal(accountName('openclaw', NS, AGENT), 'openclaw-d74736b6a770');
    assert.equal(accountName('oc', NS, AGENT), 'oc-d74736b6a770');
    assert.equal(accountName('_svc', NS, AGENT), '_svc-d74736b6a770');
    assert.equal(pairHash(NS, AGENT), 'd74736b6a770');
  });

  it('runtime.user longer than 19 characters is cut to 19', () => {
    assert.equal(ACCOUNT_PREFIX_LENGTH, 19);
    const long = 'openclaw_runtime_user_long'; // 26 characters
    const name = accountName(long, NS, AGENT);
    assert.equal(name, 'openclaw_runtime_us-d74736b6a770');
    assert.equal(name.length, 32);
  });

  it('runtime.user of exactly 19 and 20 characters', () => {
    assert.equal(accountName('abcdefghijklmnopqrs', NS, AGENT), 'abcdefghijklmnopqrs-d74736b6a770');
    assert.equal(accountName('abcdefghijklmnopqrst', NS, AGENT), 'abcdefghijklmnopqrs-d74736b6a770');
  });

  it('every name fits useradd: at most 32 characters of [a-z0-9_-]', () => {
    for (const user of ['a', 'openclaw', 'x'.repeat(19), 'y'.repeat(32), 'z'.repeat(64)]) {
      assert.match(accountName(user, NS, AGENT), /^[a-z_][a-z0-9_-]{0,31}$/, user);
    }
  });

  it('non-ASCII IDs hash the UTF-8 bytes of <namespaceId>:<agentId>', () => {
    assert.equal(accountName('openclaw', 'ns-\u00fc', 'agent-\u00e9'), 'openclaw-e00c18e6630a');
    assert.equal(accountName('openclaw', 'ns-\u65e5\u672c', 'agent-\u{1F600}'), 'openclaw-ab21f1c12156');
    assert.equal(pairHash('ns-\u00fc', 'agent-\u00e9'), 'e00c18e6630a');
    // Latin-1 bytes of the same text would give 4f8ef739ffbd.
    assert.notEqual(accountName('openclaw', 'ns-\u00fc', 'agent-\u00e9'), 'openclaw-4f8ef739ffbd');
    // No Unicode normalisation: a decomposed ü is a different ID.
    assert.equal(accountName('openclaw', 'ns-u\u0308', 'agent-\u00e9'), 'openclaw-840e6ab37666');
  });

  it('depends on Namespace and Agent, not only on runtime.user', () => {
    assert.equal(accountName('openclaw', NS, 'agent-7f3b'), 'openclaw-a18853014276');
    assert.notEqual(accountName('openclaw', NS, AGENT), accountName('openclaw', 'ns-01HZX4', AGENT));
    // The separator matters: moving it changes the name.
    assert.equal(accountName('openclaw', 'ns-01HZX', '3agent-7f3a'), `openclaw-${pairHash('ns-01HZX', '3agent-7f3a')}`);
    assert.notEqual(accountName('openclaw', 'ns-01HZX', '3agent-7f3a'), accountName('openclaw', NS, AGENT));
  });

  it('follows the documented `<namespaceId>:<agentId>` join literally, so a `:` inside IDs can move between them', () => {
    // ID_PATTERN allows `:`; the account marker (exact ownership) is what separates such pairs.
    assert.equal(accountName('openclaw', 'a:b', 'c'), accountName('openclaw', 'a', 'b:c'));
  });

  it('refuses a non-ASCII, upper-case, root or empty runtime.user', () => {
    for (const user of ['\u00f6penclaw', 'openc\u0142aw', 'OpenClaw', 'OPENCLAW', 'root', '', '1openclaw', '-openclaw', 'open claw', 'open.claw', 'openclaw$']) {
      assert.throws(() => accountName(user, NS, AGENT), RangeError, JSON.stringify(user));
    }
  });
});
