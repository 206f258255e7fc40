// The lanes' document sentinel: every document the crash-point and kill lanes deliver carries it, and
// the corpus check finds it wherever one of those documents leaked, in any encoding.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { owner, prepareArgs } from '@occ-ssh/test-support';
import { setupArgs } from '../host/fixture-args.js';
import { LANE_DOCUMENT_SENTINEL, laneSightings } from './lane-documents.js';

describe('lane document sentinel', () => {
  const setup = setupArgs(prepareArgs(owner('sent'), 1), LANE_DOCUMENT_SENTINEL);

  it('is in every document the lanes deliver', () => {
    assert.ok(setup.setup.documents.length > 0);
    for (const document of setup.setup.documents) assert.ok(document.content.includes(LANE_DOCUMENT_SENTINEL), document.name);
  });

  it('is found in a leaked document, raw or encoded, and not in clean lines', () => {
    const content = setup.setup.documents[0]!.content;
    const clean = 'occ-ssh-helper: request=t-1 operation=setup-workspace outcome=ok changes=4';
    const corpora = [
      { name: 'helper audit lines', text: `${clean}\n${clean} error=${JSON.stringify(content)}` },
      { name: 'host journal', text: `x ${Buffer.from(content).toString('base64')}\ny ${Buffer.from(content).toString('hex')}` },
      { name: 'campaign results file', text: clean },
    ];
    const found = laneSightings(corpora).map((sighting) => `${sighting.where} ${sighting.encoding}`);
    assert.deepEqual(found.sort(), ['helper audit lines line 2 raw', 'host journal line 1 base64', 'host journal line 2 hex']);
  });
});
