// OCC's runtime view as mapped from the helper's answers: systemd's states, exits and events in
// OCC's shapes, and log requests refused or bounded before and after the host.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unitName } from '@occ-ssh/markers';
import { exampleResult, type OperationResult } from '@occ-ssh/protocol';
import { admitLogRequest, retentionText, toDescription, toLogChunk } from './runtime-view.js';
import type { AgentRuntimeLogRequest } from './runtime-types.js';

const NOW = new Date('2026-01-01T00:02:00.000Z');
const described = exampleResult('describe-runtime');

describe('describe-runtime in OCC shape', () => {
  it('a running unit after one kill -9 is one Running pod with the restart and the signal', () => {
    const description = toDescription('rev-0001', described, undefined, NOW);
    assert.equal(description.observedAt, NOW.toISOString());
    const [pod] = description.pods;
    assert.deepEqual(
      { ...pod, events: [] },
      {
        role: 'gateway',
        cluster: 'execution',
        name: described.unit,
        uid: described.pod!.uid,
        phase: 'Running',
        ready: true,
        createdAt: '2026-01-01T00:00:00.000Z',
        containers: [
          {
            name: 'gateway',
            state: 'running',
            reason: null,
            ready: true,
            restartCount: 1,
            startedAt: '2026-01-01T00:01:00.000Z',
            lastTermination: { reason: 'killed by signal 9 (SIGKILL)', exitCode: 137, finishedAt: '2026-01-01T00:00:58.000000Z' },
          },
        ],
        events: [],
      },
    );
    assert.deepEqual(
      pod!.events.map((event) => [event.type, event.reason]),
      [
        ['Normal', 'Started'],
        ['Warning', 'Killed'],
        ['Warning', 'BackOff'],
      ],
    );
    assert.deepEqual(description.sources, [
      {
        id: 'gateway',
        kind: 'container',
        pods: [{ name: described.unit, uid: described.pod!.uid, container: 'gateway', restartCount: 1 }],
        available: true,
        retention: 'journald namespace openclaw-enterprise: SystemMaxUse=2G, MaxRetentionSec=30day',
      },
    ]);
    assert.deepEqual(toDescription('rev-0001', described, { events: false }, NOW).pods[0]!.events, []);
  });

  it('no pod is NO_POD; a unit waiting to restart is Pending, a failed one Failed with its result', () => {
    const none = toDescription('rev-0001', { ...described, pod: null, absent: 'not-current' }, undefined, NOW);
    assert.deepEqual(none.pods, []);
    assert.deepEqual({ ...none.sources[0], retention: '' }, { id: 'gateway', kind: 'container', pods: [], available: false, unavailableCode: 'NO_POD', retention: '' });
    const waiting = toDescription('rev-0001', { ...described, pod: { ...described.pod!, activeState: 'activating', subState: 'auto-restart', result: 'signal', ready: false } }, undefined, NOW);
    assert.equal(waiting.pods[0]!.phase, 'Pending');
    assert.deepEqual([waiting.pods[0]!.containers[0]!.state, waiting.pods[0]!.containers[0]!.reason], ['waiting', 'auto-restart: signal']);
    const failed = toDescription(
      'rev-0001',
      { ...described, pod: { ...described.pod!, activeState: 'failed', subState: 'failed', result: 'start-limit-hit', ready: false, lastExit: { code: 'exited', status: 3, at: null } } },
      undefined,
      NOW,
    );
    assert.equal(failed.pods[0]!.phase, 'Failed');
    assert.deepEqual(failed.pods[0]!.containers[0]!.lastTermination, { reason: 'exit status 3', exitCode: 3, finishedAt: null });
    assert.match(retentionText({ namespace: 'openclaw-enterprise', settings: {} }), /journald defaults/);
  });

  it('repeated events in a row are counted once, with the last time', () => {
    const crash = { time: '', kind: 'exited', code: 'exited', status: 1 } as const;
    const pod = {
      ...described.pod!,
      events: [
        { ...crash, time: 't1' },
        { ...crash, time: 't2' },
      ],
    };
    assert.deepEqual(toDescription('rev-0001', { ...described, pod }, undefined, NOW).pods[0]!.events, [
      { type: 'Warning', container: 'gateway', reason: 'Exited', message: 'main process exited with status 1', count: 2, lastObservedAt: 't2' },
    ]);
  });
});

describe('runtime log requests', () => {
  const pod = unitName('agent-7f3a');
  const request = (extra: Partial<AgentRuntimeLogRequest> = {}): AgentRuntimeLogRequest => ({
    source: 'gateway',
    pod,
    podUid: '0d7c52a1-94f3-4b6e-8a07-3c2b1f0e9d84',
    container: 'gateway',
    previous: false,
    tailLines: 100,
    limitBytes: 4096,
    signal: new AbortController().signal,
    ...extra,
  });

  it('a listed pod becomes read-logs arguments, bounds lowered to the helper page', () => {
    assert.deepEqual(admitLogRequest('agent-7f3a', request({ previous: true, tailLines: 5000, limitBytes: 10 ** 9, sinceSeconds: 60 })), {
      lines: 1000,
      instance: 'previous',
      podUid: '0d7c52a1-94f3-4b6e-8a07-3c2b1f0e9d84',
      limitBytes: 256 * 1024,
      withinSeconds: 60,
    });
  });

  it('a source, container, pod or bound that is not listed is a permanent admission error', () => {
    for (const extra of [{ source: 'agent' }, { container: 'x' }, { pod: unitName('agent-other') }, { podUid: 'x' }, { tailLines: 0 }, { limitBytes: -1 }, { sinceSeconds: 0 }] as const) {
      assert.throws(
        () => admitLogRequest('agent-7f3a', request(extra as Partial<AgentRuntimeLogRequest>)),
        (error: { code?: string; failure?: string }) => error.code === 'admission' && error.failure === 'permanent',
      );
    }
  });

  it('the byte bound holds again on what the host sent', () => {
    const page: OperationResult<'read-logs'> = {
      unit: pod,
      uid: 990,
      entries: [
        { time: 't1', pid: 1, message: 'old line' },
        { time: 't2', pid: 1, message: null },
        { time: 't3', pid: 1, message: 'x'.repeat(100) },
      ],
      cursor: null,
      truncated: false,
    };
    const chunk = toLogChunk(request(), page, 10, NOW);
    assert.deepEqual(chunk.lines, [{ time: 't3', raw: 'x'.repeat(10) }]);
    assert.equal(chunk.truncated, true);
    assert.deepEqual(chunk.stream, { source: 'gateway', pod, podUid: '0d7c52a1-94f3-4b6e-8a07-3c2b1f0e9d84', container: 'gateway' });
    assert.deepEqual(
      toLogChunk(request(), page, 200, NOW).lines.map((line) => line.raw),
      ['old line', '', 'x'.repeat(100)],
    );
  });
});
