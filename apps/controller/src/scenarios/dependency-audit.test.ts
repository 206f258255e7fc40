import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeAudit } from '../../test/audit.js';

/** What npm 11 printed here on 2026-12-02, where the registry answers only GET and HEAD. */
const REFUSED = JSON.stringify({
  message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
  method: 'POST',
  uri: 'https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
  headers: { allow: ['GET,HEAD'] },
  statusCode: 405,
  body: '',
  error: { summary: '', detail: '' },
});
const report = (vulnerabilities: Record<string, unknown>) => JSON.stringify({ auditReportVersion: 2, vulnerabilities, metadata: { dependencies: { prod: 41, total: 41 } } });
const advisory = (severity: string) => ({ name: 'yaml', severity, range: '2.0.0 - 2.2.1', via: [{ title: 'Uncaught exception', url: 'https://github.com/advisories/GHSA-f9xv-q969-pqx4', severity }] });

describe('the dependency audit verdict', () => {
  it('an endpoint that answers an HTTP error is unchecked, naming the answer, never clean', () => {
    assert.deepEqual(judgeAudit(REFUSED), { kind: 'unchecked', reason: 'the registry answered 405 to POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk' });
  });

  it('an endpoint that cannot be reached is unchecked; any other npm failure is broken', () => {
    assert.equal(judgeAudit(JSON.stringify({ error: { code: 'ENOTFOUND', summary: 'request failed' } })).kind, 'unchecked');
    assert.deepEqual(judgeAudit(JSON.stringify({ error: { code: 'ENOLOCK', summary: 'This command requires an existing lockfile.' } })), {
      kind: 'broken',
      reason: 'npm audit failed: ENOLOCK This command requires an existing lockfile.',
    });
    assert.equal(judgeAudit('npm ERR! something').kind, 'broken');
    assert.equal(judgeAudit(JSON.stringify({ auditReportVersion: 1, advisories: {} })).kind, 'broken');
  });

  it('an advisory at moderate or above fails, naming the package, range and advisory', () => {
    const verdict = judgeAudit(report({ yaml: advisory('moderate'), pino: { severity: 'low', range: '<1', via: ['yaml'] } }));
    assert.deepEqual(verdict, { kind: 'vulnerable', findings: ['yaml 2.0.0 - 2.2.1 (moderate): https://github.com/advisories/GHSA-f9xv-q969-pqx4'] });
  });

  it('a report with nothing at moderate or above is clean and lists what it let through', () => {
    assert.deepEqual(judgeAudit(report({})), { kind: 'clean', dependencies: 41, below: [] });
    assert.deepEqual(judgeAudit(report({ yaml: advisory('low') })), { kind: 'clean', dependencies: 41, below: ['yaml 2.0.0 - 2.2.1 (low): https://github.com/advisories/GHSA-f9xv-q969-pqx4'] });
  });
});
