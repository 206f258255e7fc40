import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { cpuAccount, ownCpuacctPath } from './cpu-account.js';

describe('CPU accounting by cgroup', () => {
  it("finds the caller's cpuacct cgroup among the hierarchies, shared or alone", () => {
    assert.equal(ownCpuacctPath('9:name=systemd:/\n2:cpuacct:/ci/e2e\n1:cpu:/\n0::/'), '/ci/e2e');
    assert.equal(ownCpuacctPath('3:cpu,cpuacct:/a/b\n'), '/a/b');
    assert.equal(ownCpuacctPath('0::/user.slice\n'), undefined);
  });

  it("counts the CPU of a command's grandchildren, or measures nothing where no cpuacct hierarchy exists", () => {
    // A child that burns about 0.4 s of CPU in a grandchild, then waits for it.
    const burn = 'const t = Date.now(); while (Date.now() - t < 400) {}';
    const script = `require("child_process").spawnSync(process.execPath, ["-e", ${JSON.stringify(burn)}], { stdio: "inherit" })`;
    const account = cpuAccount('cpu-account-test', process.execPath, ['-e', script]);
    if (!existsSync('/sys/fs/cgroup/cpuacct/cpuacct.usage')) {
      assert.equal(account, undefined);
      return;
    }
    assert.ok(account, 'a cgroup was made');
    const result = spawnSync(account.command, account.args, { stdio: 'inherit' });
    assert.equal(result.status, 0);
    const seconds = account.seconds();
    account.remove();
    assert.ok(seconds >= 0.3 && seconds < 30, `measured ${seconds} s`);
  });
});
