// The multi-unit `systemctl show` inventory reads: one block per unit, found by Id, whatever order or
// gaps systemd's answer has.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseStatuses } from './systemd.js';

const A = 'openclaw-enterprise-gateway-fcfbd503951a.service';
const B = 'openclaw-enterprise-gateway-0a1b2c3d4e5f.service';

describe('parseStatuses', () => {
  it('reads each block by its Id: counts as numbers, [not set] and infinity as null, no processes as empty', () => {
    const text = [
      `Id=${A}`,
      'ActiveState=active',
      'MemoryCurrent=104857600',
      'NRestarts=2',
      `ControlGroup=/system.slice/${A}`,
      'MainPID=4242',
      '',
      `MainPID=0`,
      `Id=${B}`,
      'ActiveState=inactive',
      'MemoryCurrent=[not set]',
      'NRestarts=18446744073709551615',
      'ControlGroup=',
      '',
    ].join('\n');
    assert.deepEqual(
      [...parseStatuses(text)],
      [
        [A, { activeState: 'active', memoryBytes: 104_857_600, restarts: 2, controlGroup: `/system.slice/${A}`, mainPid: 4242 }],
        [B, { activeState: 'inactive', memoryBytes: null, restarts: null, controlGroup: '', mainPid: 0 }],
      ],
    );
  });

  it('skips a block without an Id and a block cut short reads what it has', () => {
    assert.deepEqual(
      [...parseStatuses('ActiveState=active\n\nId=x.service\nActiveState=act')],
      [['x.service', { activeState: 'act', memoryBytes: null, restarts: null, controlGroup: '', mainPid: 0 }]],
    );
  });
});
