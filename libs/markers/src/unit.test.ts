// Golden systemd gateway units and every refusal of the pure renderer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_LAUNCH_ENV_BYTES, MAX_LAUNCH_ENV_ENTRIES } from '@occ-ssh/protocol';
import { exampleUnitInput } from './examples.js';
import { agentLayout } from './layout.js';
import { environmentFileLine, hasOwnershipHeader, renderLaunchEnvironment, renderUnit, UnitRenderError, unitOwnershipHeader } from './unit.js';

const ROOT = '/var/lib/openclaw-enterprise';
const UNIT_DIR = '/etc/systemd/system';
const NS = 'ns-01HZX3';
const AGENT = 'agent-7f3a';

const input = exampleUnitInput;

/** Supervision and sandbox, the same in every mode: spelled once, still compared to the letter. */
const SANDBOX = `Restart=always
RestartSec=2
KillSignal=SIGTERM
TimeoutStopSec=30
NoNewPrivileges=true
PrivateTmp=true
LimitCORE=0
ProtectSystem=strict
TemporaryFileSystem=/var/lib/openclaw-enterprise:ro
BindPaths=/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/home /var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/state
BindReadOnlyPaths=/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/current
InaccessiblePaths=/etc/systemd/system -/run/dbus/system_bus_socket
ReadOnlyPaths=/run
ProtectHome=yes
TemporaryFileSystem=/dev/shm:ro
UMask=0077
PrivateDevices=yes
DevicePolicy=closed
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
ProcSubset=pid
PrivateUsers=yes
PrivateIPC=yes
RestrictNamespaces=yes
RestrictRealtime=yes
LockPersonality=yes
RemoveIPC=yes
KeyringMode=private
CapabilityBoundingSet=
AmbientCapabilities=
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallFilter=~@privileged @resources
SystemCallErrorNumber=EPERM
LogNamespace=openclaw-enterprise
LogRateLimitIntervalSec=30s
LogRateLimitBurst=1000
InaccessiblePaths=-/run/systemd/journal/socket -/run/systemd/journal/dev-log -/run/systemd/journal.openclaw-enterprise/socket -/run/systemd/journal.openclaw-enterprise/dev-log
`;

/** The golden unit, spelled out once: the two modes differ only in the port and the managed password's EnvironmentFile line. */
const goldenUnit = (port: number, passwordLine: string) => `# Managed by the OpenClaw Enterprise SSH Compute Driver (compute-ssh); edits are refused, not adopted.
# X-OCC-Namespace-Id=ns-01HZX3
# X-OCC-Agent-Id=agent-7f3a

[Unit]
Description=OpenClaw Enterprise gateway openclaw-enterprise-gateway-fcfbd503951a
After=network.target

[Service]
Type=simple
User=openclaw-d74736b6a770
Group=openclaw-d74736b6a770
WorkingDirectory=/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/home
Environment="HOME=/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/home"
Environment="OPENCLAW_STATE_DIR=/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/state"
Environment="OPENCLAW_CONFIG_PATH=/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/current/openclaw.json"
Environment="OPENCLAW_GATEWAY_PORT=${port}"
Environment="NODE_COMPILE_CACHE=/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/home/.node-compile-cache"
Environment="OPENCLAW_PACKAGED_COMPILE_CACHE_RESPAWNED=1"
${passwordLine}EnvironmentFile=/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/launch.env
EnvironmentFile=-/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/env
ExecStart=/usr/bin/node /opt/openclaw/current/dist/index.js gateway --port ${port}
${SANDBOX}SocketBindAllow=tcp:${port}
SocketBindDeny=any
IPAddressDeny=169.254.0.0/16 fe80::/10

[Install]
WantedBy=multi-user.target
`;

const PASSWORD_UNIT = goldenUnit(18800, 'EnvironmentFile=/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/gateway-password.env\n');
const TRUSTED_PROXY_UNIT = goldenUnit(18801, '');

describe('renderUnit goldens', () => {
  it('password mode: exact unit text', () => {
    assert.equal(renderUnit(input()), PASSWORD_UNIT);
  });

  it('trusted proxy without password: exact unit text', () => {
    const text = renderUnit(input({ port: 18801, managedPassword: false }));
    assert.equal(text, TRUSTED_PROXY_UNIT);
    assert.doesNotMatch(text, /gateway-password\.env/);
  });

  it('lets the gateway bind only its own port, whatever the port', () => {
    const text = renderUnit(input({ port: 18842 }));
    assert.deepEqual(
      text.split('\n').filter((line) => line.startsWith('SocketBind')),
      ['SocketBindAllow=tcp:18842', 'SocketBindDeny=any'],
    );
  });

  it('neither golden sets OPENCLAW_LOG_LEVEL nor a login shell, and both load the optional operator env file', () => {
    for (const text of [PASSWORD_UNIT, TRUSTED_PROXY_UNIT]) {
      assert.doesNotMatch(text, /OPENCLAW_LOG_LEVEL/);
      assert.match(text, /^EnvironmentFile=-\/var\/lib\/openclaw-enterprise\/namespaces\/edd5c19a1cef\/agents\/fcfbd503951a\/env$/m);
      assert.doesNotMatch(text, /^User=root$/m);
    }
  });

  it('sandboxes only inside [Service], keeps the seed directives, and leaves out what breaks the gateway', () => {
    for (const text of [PASSWORD_UNIT, TRUSTED_PROXY_UNIT]) {
      const service = text.slice(text.indexOf('[Service]\n'), text.indexOf('[Install]\n'));
      for (const line of [
        'NoNewPrivileges=true',
        'PrivateTmp=true',
        'Restart=always',
        'RestartSec=2',
        'KillSignal=SIGTERM',
        'TimeoutStopSec=30',
        'ProtectSystem=strict',
        'CapabilityBoundingSet=',
        'SystemCallFilter=@system-service',
      ]) {
        assert.match(service, new RegExp(`^${line}$`, 'm'), line);
      }
      assert.doesNotMatch(text, /^(MemoryDenyWriteExecute|RestrictSUIDSGID|PrivateNetwork|IPAddressAllow|AmbientCapabilities=.+|CapabilityBoundingSet=.+)/m);
      // Link-local only: the gateway must reach its model providers.
      assert.deepEqual(
        text.split('\n').filter((line) => line.startsWith('IPAddress')),
        ['IPAddressDeny=169.254.0.0/16 fe80::/10'],
      );
      assert.doesNotMatch(text, /^ReadWritePaths=/m);
    }
  });

  it("hides the root, the unit directory and systemd's configuration directory, binding back exactly the rendered Agent's own home, state and snapshot", () => {
    const other = agentLayout('/srv/oc', '/run/systemd/system', NS, 'agent-other');
    const text = renderUnit(input({ agentId: 'agent-other', root: '/srv/oc', layout: other }));
    for (const line of [
      'TemporaryFileSystem=/srv/oc:ro',
      `BindPaths=${other.home} ${other.state}`,
      `BindReadOnlyPaths=${other.current}`,
      // The links and wants links in /etc/systemd/system name every sibling's unit.
      'InaccessiblePaths=/run/systemd/system /etc/systemd/system -/run/dbus/system_bus_socket',
    ]) {
      assert.match(text, new RegExp(`^${line.replace(/[.+]/g, '\\$&')}$`, 'm'), line);
    }
    assert.doesNotMatch(text, /fcfbd503951a/);
  });

  it('sets a hard core limit of 0, and denies link-local addresses unless the Installation allows them', () => {
    assert.match(PASSWORD_UNIT, /^LimitCORE=0$/m);
    const allowed = renderUnit(input({ allowLinkLocal: true }));
    assert.doesNotMatch(allowed, /^IPAddressDeny=/m);
    assert.equal(allowed, PASSWORD_UNIT.replace('IPAddressDeny=169.254.0.0/16 fe80::/10\n', ''));
    assert.equal(renderUnit(input({ allowLinkLocal: false })), PASSWORD_UNIT);
  });

  it('keeps every journal socket but its stdout stream from the gateway, under both paths LogNamespace= leaves visible', () => {
    const denied = PASSWORD_UNIT.split('\n').filter((line) => line.startsWith('InaccessiblePaths=') && line.includes('journal'));
    assert.deepEqual(denied, [
      'InaccessiblePaths=-/run/systemd/journal/socket -/run/systemd/journal/dev-log -/run/systemd/journal.openclaw-enterprise/socket -/run/systemd/journal.openclaw-enterprise/dev-log',
    ]);
    assert.doesNotMatch(PASSWORD_UNIT, /journal[^ \n]*\/stdout/);
  });

  it('starts with its own ownership header', () => {
    assert.ok(hasOwnershipHeader(PASSWORD_UNIT, NS, AGENT));
    assert.ok(renderUnit(input()).startsWith(`${unitOwnershipHeader(NS, AGENT)}\n`));
  });
});

describe('renderUnit refusals', () => {
  const badPaths = [
    ['a space', '/usr/local/my node'],
    ['%', '/usr/bin/node%i'],
    ['$', '/usr/bin/$NODE'],
    ['a double quote', '/usr/bin/"node"'],
    ['a single quote', "/usr/bin/no'de"],
    ['a newline', '/usr/bin/node\nExecStartPre=/bin/sh'],
    ['a relative path', 'usr/bin/node'],
  ] as const;

  for (const [what, path] of badPaths) {
    it(`refuses a nodePath with ${what}`, () => {
      assert.throws(() => renderUnit(input({ nodePath: path })), UnitRenderError);
    });
    it(`refuses an openclawPath with ${what}`, () => {
      assert.throws(() => renderUnit(input({ openclawPath: path })), UnitRenderError);
    });
  }

  it('refuses an Agent directory under a root with a space, %, $, a quote or a newline', () => {
    for (const root of ['/var/lib/open claw', '/var/lib/%h', '/var/lib/$ROOT', '/var/lib/"oc"', '/var/lib/oc\nX=1']) {
      assert.throws(() => renderUnit(input({ root, layout: agentLayout(root, UNIT_DIR, NS, AGENT) })), UnitRenderError, JSON.stringify(root));
    }
  });

  it('refuses programs under the root or the unit directory, which the sandbox hides, and an Agent directory outside the root', () => {
    for (const dir of [ROOT, `${ROOT}/tools`, UNIT_DIR]) {
      assert.throws(() => renderUnit(input({ nodePath: `${dir}/node` })), /nodePath .*is under .*sandbox hides/, dir);
      assert.throws(() => renderUnit(input({ openclawPath: `${dir}/openclaw.mjs` })), /openclawPath .*is under .*sandbox hides/, dir);
    }
    assert.doesNotThrow(() => renderUnit(input({ nodePath: `${ROOT}-tools/node`, openclawPath: '/etc/systemd/systemd-openclaw.mjs' })), 'only whole path segments count');
    assert.throws(() => renderUnit(input({ root: '/srv/oc' })), /not inside the root/);
  });

  it("with the unit directory elsewhere, refuses programs and a root under systemd's configuration directory, which the sandbox then hides too", () => {
    const layout = agentLayout(ROOT, '/srv/occ-units', NS, AGENT);
    for (const dir of ['/srv/occ-units', '/etc/systemd/system', '/etc/systemd/system/bin']) {
      assert.throws(() => renderUnit(input({ layout, nodePath: `${dir}/node` })), /nodePath .*is under .*sandbox hides/, dir);
    }
    const root = '/etc/systemd/system/occ';
    assert.throws(() => renderUnit(input({ root, layout: agentLayout(root, '/srv/occ-units', NS, AGENT) })), /root .*is under \/etc\/systemd\/system, which the gateway unit's sandbox hides/);
    assert.match(renderUnit(input({ layout })), /^InaccessiblePaths=\/srv\/occ-units \/etc\/systemd\/system -\/run\/dbus\/system_bus_socket$/m);
  });

  it('refuses paths the sandbox hides from the gateway (ProtectHome, PrivateTmp, /dev/shm)', () => {
    for (const dir of ['/home', '/root', '/run/user', '/tmp', '/var/tmp', '/dev/shm']) {
      assert.throws(() => renderUnit(input({ nodePath: `${dir}/deploy/node` })), /sandbox hides/, dir);
      assert.throws(() => renderUnit(input({ openclawPath: `${dir}/openclaw.mjs` })), /sandbox hides/, dir);
      assert.throws(() => renderUnit(input({ root: `${dir}/openclaw-enterprise`, layout: agentLayout(`${dir}/openclaw-enterprise`, UNIT_DIR, NS, AGENT) })), /sandbox hides/, dir);
    }
    // Only whole path segments count.
    assert.doesNotThrow(() =>
      renderUnit(input({ nodePath: '/homebrew/bin/node', openclawPath: '/rootfs/openclaw.mjs', root: '/tmpdata/oc', layout: agentLayout('/tmpdata/oc', UNIT_DIR, NS, AGENT) })),
    );
    assert.doesNotThrow(() => renderUnit(input({ root: '/run/openclaw', layout: agentLayout('/run/openclaw', UNIT_DIR, NS, AGENT) })));
  });

  it('refuses a bad account name', () => {
    for (const account of ['', 'OpenClaw-d74736b6a770', 'openclaw d74736b6a770', 'openclaw\nUser=root', '9openclaw', 'a'.repeat(33), 'open$claw', '\u00f6penclaw-d74736b6a770']) {
      assert.throws(() => renderUnit(input({ account })), UnitRenderError, JSON.stringify(account));
    }
  });

  it('refuses a port out of range or not an integer', () => {
    for (const port of [0, 80, 1023, 65536, 70000, -1, 18800.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => renderUnit(input({ port })), UnitRenderError, String(port));
    }
    assert.doesNotThrow(() => renderUnit(input({ port: 1024 })));
    assert.doesNotThrow(() => renderUnit(input({ port: 65535 })));
  });

  it('refuses a launch environment with a bad name', () => {
    for (const name of ['lower_case', '1ABC', 'A-B', 'A B', 'A=B', '', 'X\nExecStartPre']) {
      assert.throws(() => renderLaunchEnvironment({ [name]: 'opaque-x' }), UnitRenderError, JSON.stringify(name));
    }
  });

  it('refuses a non-opaque launch value', () => {
    for (const value of ['plain', 'opaque-', 'opaque-a b', 'opaque-"x"', 'opaque-%i', 'opaque-$HOME', 'opaque-x\nExecStartPre=/bin/sh', 'sk-live-secret', `opaque-${'x'.repeat(501)}`]) {
      assert.throws(() => renderLaunchEnvironment({ OCC_REF: value }), UnitRenderError, JSON.stringify(value));
    }
  });

  it('refuses driver-owned and loader names', () => {
    for (const name of ['HOME', 'OPENCLAW_GATEWAY_PASSWORD', 'OPENCLAW_STATE_DIR', 'OPENCLAW_CONFIG_PATH', 'OPENCLAW_GATEWAY_PORT', 'LD_PRELOAD', 'NODE_OPTIONS', 'NODE_COMPILE_CACHE', 'PATH']) {
      assert.throws(() => renderLaunchEnvironment({ [name]: 'opaque-x' }), UnitRenderError, name);
    }
  });

  it('refuses too many entries', () => {
    const env = Object.fromEntries(Array.from({ length: MAX_LAUNCH_ENV_ENTRIES + 1 }, (_, i) => [`OCC_REF_${i}`, 'opaque-x']));
    assert.throws(() => renderLaunchEnvironment(env), UnitRenderError);
    const atLimit = Object.fromEntries(Array.from({ length: MAX_LAUNCH_ENV_ENTRIES }, (_, i) => [`OCC_REF_${i}`, 'opaque-x']));
    assert.doesNotThrow(() => renderLaunchEnvironment(atLimit));
  });

  it('refuses too many bytes', () => {
    // 17 entries of about 507 bytes each: under the entry limit, over the byte limit.
    const env = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`OCC_REF_${i}`, `opaque-${'v'.repeat(500)}`]));
    const bytes = Object.entries(env).reduce((sum, [k, v]) => sum + k.length + v.length, 0);
    assert.ok(bytes > MAX_LAUNCH_ENV_BYTES && Object.keys(env).length <= MAX_LAUNCH_ENV_ENTRIES);
    assert.throws(() => renderLaunchEnvironment(env), UnitRenderError);
  });

  it('refuses IDs that could forge header lines', () => {
    assert.throws(() => renderUnit(input({ agentId: 'agent-1\n[Service]' })), UnitRenderError);
    assert.throws(() => renderUnit(input({ namespaceId: 'ns 1' })), UnitRenderError);
  });
});

describe('renderLaunchEnvironment', () => {
  it('two placeholders, given out of order: exact launch.env text, sorted', () => {
    assert.equal(
      renderLaunchEnvironment({ OCC_IAM_TOKEN_REF: 'opaque-iam/ref:42', OCC_CONFIG_BINDING: 'opaque-cfg.binding=abc' }),
      '# Launch placeholders of beforeWorkloadStart hooks, loaded by systemd as root.\nOCC_CONFIG_BINDING="opaque-cfg.binding=abc"\nOCC_IAM_TOKEN_REF="opaque-iam/ref:42"\n',
    );
  });

  it('no placeholders: the comment line only, so the unit can always load the file', () => {
    assert.equal(renderLaunchEnvironment({}), '# Launch placeholders of beforeWorkloadStart hooks, loaded by systemd as root.\n');
  });

  it('the unit text does not depend on the placeholder values', () => {
    assert.doesNotMatch(renderUnit(input()), /opaque-/);
  });
});

describe('environmentFileLine', () => {
  it("escapes exactly what systemd's env-file parser reads inside double quotes: backslash, double quote, backtick, dollar", () => {
    assert.equal(environmentFileLine('A', 'plain'), 'A="plain"');
    assert.equal(environmentFileLine('A', 'a\\b"c`d$e'), 'A="a\\\\b\\"c\\`d\\$e"');
    assert.equal(environmentFileLine('A', "%h ${X} 'q' #;="), 'A="%h \\${X} \'q\' #;="', 'specifiers, quotes and comment marks are plain');
    assert.equal(environmentFileLine('A', 'end\\'), 'A="end\\\\"');
  });

  it('refuses control characters and bad names', () => {
    for (const value of ['a\nB=1', 'a\rb', 'a\u0000b', 'a\u007fb', 'a\tb']) assert.throws(() => environmentFileLine('A', value), UnitRenderError, JSON.stringify(value));
    for (const name of ['a', '1A', 'A-B', 'A=B', '']) assert.throws(() => environmentFileLine(name, 'x'), UnitRenderError, JSON.stringify(name));
  });
});

describe('hasOwnershipHeader', () => {
  const unit = renderUnit(input());

  it('is true for the exact Namespace and Agent', () => {
    assert.equal(hasOwnershipHeader(unit, NS, AGENT), true);
  });

  it('is false for another Agent or another Namespace', () => {
    assert.equal(hasOwnershipHeader(unit, NS, 'agent-7f3b'), false);
    assert.equal(hasOwnershipHeader(unit, 'ns-01HZX4', AGENT), false);
  });

  it('is false for a prefix-only match of either ID', () => {
    assert.equal(hasOwnershipHeader(unit, NS, 'agent-7f3'), false);
    assert.equal(hasOwnershipHeader(unit, 'ns-01HZX', AGENT), false);
    const longer = renderUnit(input({ agentId: 'agent-7f3ab', layout: agentLayout(ROOT, UNIT_DIR, NS, 'agent-7f3ab') }));
    assert.equal(hasOwnershipHeader(longer, NS, AGENT), false);
    const longerNs = renderUnit(input({ namespaceId: 'ns-01HZX3X', layout: agentLayout(ROOT, UNIT_DIR, 'ns-01HZX3X', AGENT) }));
    assert.equal(hasOwnershipHeader(longerNs, NS, AGENT), false);
  });

  it('is false for an edited header', () => {
    assert.equal(hasOwnershipHeader(unit.replace('edits are refused', 'edits are welcome'), NS, AGENT), false);
    assert.equal(hasOwnershipHeader(unit.replace('# X-OCC-Agent-Id=', '#X-OCC-Agent-Id='), NS, AGENT), false);
    assert.equal(hasOwnershipHeader(unit.replace('X-OCC-Namespace-Id=ns-01HZX3', 'X-OCC-Namespace-Id= ns-01HZX3'), NS, AGENT), false);
    assert.equal(hasOwnershipHeader(unit.replace(/\n/g, '\r\n'), NS, AGENT), false);
    assert.equal(hasOwnershipHeader(unitOwnershipHeader(NS, AGENT), NS, AGENT), false, 'header without its terminating newline');
  });

  it('is false for a header that is not at the start', () => {
    assert.equal(hasOwnershipHeader(`\n${unit}`, NS, AGENT), false);
    assert.equal(hasOwnershipHeader(` ${unit}`, NS, AGENT), false);
    assert.equal(hasOwnershipHeader(`\uFEFF${unit}`, NS, AGENT), false);
    assert.equal(hasOwnershipHeader(`[Unit]\n${unit}`, NS, AGENT), false);
  });

  it('is false for a file without a header', () => {
    assert.equal(hasOwnershipHeader('', NS, AGENT), false);
    assert.equal(hasOwnershipHeader('[Unit]\nDescription=foreign\n', NS, AGENT), false);
  });

  it('header is exactly three lines naming the Driver, Namespace and Agent', () => {
    assert.equal(
      unitOwnershipHeader(NS, AGENT),
      '# Managed by the OpenClaw Enterprise SSH Compute Driver (compute-ssh); edits are refused, not adopted.\n' + '# X-OCC-Namespace-Id=ns-01HZX3\n' + '# X-OCC-Agent-Id=agent-7f3a',
    );
  });
});
