// diagnose-deployment's check list: what OCC accepts of a check's names, and room for the host's answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEPLOYMENT_CHECKS, OPERATIONS, exampleResult } from './operations/index.js';

describe('diagnose-deployment checks', () => {
  it("names every check once, in OCC's identifier alphabet, within OCC's 32", () => {
    const names = DEPLOYMENT_CHECKS.map(([component, check]) => `${component} ${check}`);
    assert.equal(new Set(names).size, names.length);
    assert.ok(names.length <= 32);
    for (const [component, check] of DEPLOYMENT_CHECKS) for (const name of [component, check]) assert.match(name, /^[a-z]+(-[a-z]+)*$/);
    assert.deepEqual(DEPLOYMENT_CHECKS[0], ['host', 'reachable'], "the controller's own check comes first");
  });

  it("refuses a host answer with an ill-formed code, name or state, or more checks than OCC's 32 leave room for", () => {
    const result = OPERATIONS['diagnose-deployment'].result;
    const base = exampleResult('diagnose-deployment');
    const check = base.checks[1]!;
    for (const bad of [
      { ...check, code: 'unit failed' },
      { ...check, component: 'Unit' },
      { ...check, state: 'degraded' },
      { ...check, message: 'text' },
    ]) {
      assert.equal(result.safeParse({ ...base, checks: [bad] }).success, false, JSON.stringify(bad));
    }
    assert.equal(result.safeParse({ ...base, checks: Array.from({ length: 32 }, () => check) }).success, false);
    assert.equal(result.safeParse({ ...base, checks: Array.from({ length: 31 }, () => check) }).success, true);
  });
});
