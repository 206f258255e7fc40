// The sandbox-off drop-in follows the unit libs/markers renders.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderedUnit, sandboxDirectives, sandboxOffDropIn, serviceDirectives } from './sandbox-off.js';

describe('the sandbox-off drop-in', () => {
  it('turns off every confining directive of the rendered unit, each once', () => {
    const text = sandboxOffDropIn();
    const lines = text.trimEnd().split('\n');
    assert.equal(lines[0], '[Service]');
    assert.deepEqual(
      lines.slice(1).map((line) => line.slice(0, line.indexOf('='))),
      sandboxDirectives(),
    );
    for (const name of ['ProtectSystem', 'PrivateTmp', 'NoNewPrivileges', 'SystemCallFilter', 'SocketBindDeny']) assert.ok(sandboxDirectives().includes(name), name);
    assert.ok(lines.includes('ProtectSystem=no') && lines.includes('SystemCallFilter=') && lines.includes('ProtectProc=default'));
  });

  it('refuses a rendered sandbox directive it has no off value for', () => {
    const unit = renderedUnit().replace('\nPrivateTmp=true\n', '\nPrivateTmp=true\nMemoryDenyWriteExecute=yes\n');
    assert.throws(() => sandboxOffDropIn(unit), /sandbox directive MemoryDenyWriteExecute/);
  });

  it('reads directive names from the [Service] section only', () => {
    const unit = '# X-OCC-Namespace-Id=a\n\n[Unit]\nAfter=network.target\n\n[Service]\nType=simple\nProtectHome=yes\nProtectHome=tmpfs\n\n[Install]\nWantedBy=multi-user.target\n';
    assert.deepEqual(serviceDirectives(unit), ['Type', 'ProtectHome']);
  });
});
