// The bad-input section's helper arguments: the wire's header and stdin prelude broken, base64 and
// JSON malformed, envelopes with bad fields, and seeded random corruptions of a valid prepare, each
// sent raw to the helper, which must refuse it with a configuration error.
import { canonicalHash, sha256Hex } from '@occ-ssh/markers';
import { sealOperation, sealRaw, type SealedOperation } from '@occ-ssh/helper-call';
import { decodeArgument, encodeArgument, MAX_ARGUMENT_BYTES, PROTOCOL_VERSION, type Envelope } from '@occ-ssh/protocol';
import { envelopeFor } from '@occ-ssh/test-support';
import { ownerOf, prepareArgs } from '../host/fixture-args.js';
import type { Rng } from '../campaign/rng.js';
import type { HostLink } from '../host/ssh.js';
import { NAMESPACE } from './driver-cases.js';

export interface ArgumentCase {
  name: string;
  /** An encoded operation to seal, or an exact wire form (header argument and stdin prelude). */
  argument: string | SealedOperation;
}

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64');

/** A list of cases, added to by name: `add` an argument as is, `raw` a value base64-encoded. */
function caseList() {
  const cases: ArgumentCase[] = [];
  const add = (name: string, argument: string | SealedOperation) => cases.push({ name, argument });
  const raw = (name: string, value: unknown) => add(name, b64(value));
  return { cases, add, raw };
}

type Good = Envelope;
type Prepared = Extract<Envelope, { operation: 'prepare-revision' }>;

/** The wire itself: the argv header and the stdin prelude that must agree with it, and base64 broken. */
function wireCases(good: Good, encoded: string): ArgumentCase[] {
  const { cases, add } = caseList();
  const sealed = sealOperation(encoded);
  const header = JSON.parse(Buffer.from(sealed.argument, 'base64').toString('utf8')) as { sealed: { sha256: string; bytes: number } };
  const headerOf = (value: unknown) => b64(value);
  add('header argument missing', { argument: '', prelude: sealed.prelude });
  add('header argument not base64', { argument: 'not-base64!', prelude: sealed.prelude });
  add('header argument of another protocol version', { argument: headerOf({ ...header, protocolVersion: 1 }), prelude: sealed.prelude });
  add('header argument with an extra key', { argument: headerOf({ ...header, operation: 'probe' }), prelude: sealed.prelude });
  add('header digest of another operation', { argument: sealOperation(b64({ ...good, requestId: 'other' })).argument, prelude: sealed.prelude });
  add('header length off by one', { argument: headerOf({ ...header, sealed: { ...header.sealed, bytes: header.sealed.bytes + 1 } }), prelude: sealed.prelude });
  add('header argument above its bound', { argument: 'A'.repeat(1024), prelude: sealed.prelude });
  add('sealed operation missing from stdin', { argument: sealed.argument, prelude: '' });
  add('sealed operation not a string', sealRaw({ text: encoded }, encoded));
  add('no argument at all', '');
  add('not base64', 'not base64!');
  add('only symbols', '@@@@');
  add('base64url alphabet', encoded.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') + '-_');
  add('padding removed', encoded.replace(/=+$/, '').slice(0, -1));
  add('last character removed', encoded.slice(0, -1));
  add('truncated to half', encoded.slice(0, Math.floor(encoded.length / 8) * 4 - 3));
  add('a trailing invalid character', `${encoded}!`);
  add('oversized (above the argument limit)', 'A'.repeat(MAX_ARGUMENT_BYTES + 4));
  return cases;
}

/** Envelopes that decode but carry a bad field: version, operation, IDs, settings, documents, launch environments. */
function envelopeCases(link: HostLink, owner: ReturnType<typeof ownerOf>, good: Good, prepared: Prepared): ArgumentCase[] {
  const { cases, raw } = caseList();
  raw('base64 of text', 'not json at all');
  raw('base64 of broken JSON', '{"operation":');
  raw('base64 of NUL', '\u0000');
  for (const value of [null, [], 1, 'probe', {}]) raw(`JSON ${JSON.stringify(value)}`, value);
  for (const protocolVersion of [0, PROTOCOL_VERSION - 1, PROTOCOL_VERSION + 1, String(PROTOCOL_VERSION), null])
    raw(`protocol version ${JSON.stringify(protocolVersion)}`, { ...good, protocolVersion });
  raw('unknown operation exec', { ...good, operation: 'exec' });
  raw('unknown operation format-disk', { ...good, operation: 'format-disk' });
  raw('an extra top-level key', { ...good, shell: 'id' });
  raw('an extra argument key', { ...good, args: { ...good.args, force: true } });
  for (const [what, id] of [
    ['slash', 'ns/../../etc'],
    ['newline', 'ns\nX-OCC'],
    ['NUL', 'ns\u0000x'],
    ['non-ASCII', 'ns-ü'],
    ['129 characters', 'n'.repeat(129)],
  ] as const) {
    raw(`Namespace ID with ${what}`, { ...good, args: { namespace: { id, name: NAMESPACE } } });
  }
  raw('Namespace name upper-case', { ...good, args: { namespace: { id: 'ns-x', name: 'BadIn' } } });
  raw('requestId with a space', { ...good, requestId: 'a b' });
  for (const [what, root] of [
    ['space', '/var/lib/x y'],
    ['dot-dot', '/var/lib/../etc'],
    ['relative', 'var/lib/x'],
    ['dollar', '/var/lib/$x'],
  ] as const) {
    const runtime = { ...good.runtime, root };
    raw(`runtime root with ${what}`, { ...good, runtime, configurationHash: sha256Hex(JSON.stringify(runtime)) });
  }
  raw('runtime root inside the unit directory', { ...good, runtime: { ...good.runtime, root: '/etc/systemd/system/x' } });
  raw('runtime user root', { ...good, runtime: { ...good.runtime, user: 'root' } });
  raw('configuration hash of other settings', { ...good, configurationHash: '0'.repeat(64) });
  raw('configuration hash matching other settings', { ...good, configurationHash: canonicalHash({ ...good.runtime, user: 'other' }) });
  raw('prepare whose document does not match its hash', {
    ...prepared,
    args: { ...prepared.args, configuration: { ...prepared.args.configuration, document: `${prepared.args.configuration.document} ` } },
  });
  raw('prepare with another harness', { ...prepared, args: { ...prepared.args, harness: 'codex/dedicated' } });
  raw('prepare with revision number 0', { ...prepared, args: { ...prepared.args, revision: { ...prepared.args.revision, number: 0 } } });
  const activate = envelopeFor(link, 'activate-revision', {
    owner,
    revision: prepared.args.revision,
    configurationHash: prepared.args.configuration.hash,
    launchEnvironment: {},
    readinessTimeoutMs: 5000,
  }) as Extract<Envelope, { operation: 'activate-revision' }>;
  for (const [what, launchEnvironment] of [
    ['LD_PRELOAD', { LD_PRELOAD: 'opaque-x' }],
    ['a plaintext value', { OCC_X: 'plaintext' }],
    ['a newline value', { OCC_X: 'opaque-a\nb' }],
    ['the password variable', { OPENCLAW_GATEWAY_PASSWORD: 'opaque-x' }],
  ] as const) {
    raw(`activate with launch environment ${what}`, { ...activate, args: { ...activate.args, launchEnvironment } });
  }
  for (const readinessTimeoutMs of [0, 999, 120_001]) raw(`activate with readiness timeout ${readinessTimeoutMs}`, { ...activate, args: { ...activate.args, readinessTimeoutMs } });
  return cases;
}

/** Seeded random corruptions of a valid prepare argument, kept only if the helper must refuse them. */
function randomCases(prepared: Prepared, rng: Rng, randomCount: number): ArgumentCase[] {
  const { cases, add } = caseList();
  const valid = encodeArgument(prepared);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_!';
  for (let made = 0, tries = 0; made < randomCount && tries < randomCount * 50; tries += 1) {
    let corrupted: string;
    let how: string;
    if (rng.chance(0.5)) {
      const at = rng.int(0, valid.length - 1);
      corrupted = `${valid.slice(0, at)}${rng.pick([...alphabet])}${valid.slice(at + 1)}`;
      how = `character ${at} replaced`;
    } else {
      const bytes = Buffer.from(valid, 'base64');
      const at = rng.int(0, bytes.length - 1);
      const bit = rng.int(0, 7);
      bytes[at] = bytes[at]! ^ (1 << bit);
      corrupted = bytes.toString('base64');
      how = `bit ${bit} of byte ${at} flipped`;
    }
    if (corrupted === valid || mustAccept(corrupted)) continue;
    add(`random: ${how}`, corrupted);
    made += 1;
  }
  return cases;
}

export function argumentCases(link: HostLink, rng: Rng, randomCount: number): ArgumentCase[] {
  const owner = ownerOf('badarg', 'badarg', NAMESPACE);
  const good = envelopeFor(link, 'ensure-namespace', { namespace: owner.namespace });
  const prepared = envelopeFor(link, 'prepare-revision', prepareArgs(owner, 1)) as Prepared;
  const encoded = encodeArgument(good);
  return [...wireCases(good, encoded), ...envelopeCases(link, owner, good, prepared), ...randomCases(prepared, rng, randomCount)];
}

/** True when the helper would accept `argument` (decodes, settings hash and document hash match). */
function mustAccept(argument: string): boolean {
  try {
    const op = decodeArgument(argument);
    if (canonicalHash(op.runtime) !== op.configurationHash) return false;
    if (op.operation === 'prepare-revision' && sha256Hex(op.args.configuration.document) !== op.args.configuration.hash) return false;
    return true;
  } catch {
    return false;
  }
}
