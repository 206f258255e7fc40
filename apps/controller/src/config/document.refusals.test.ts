// Refused Installation documents: selection, Sandbox composition, YAML syntax and document shape.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertRefusal, CONFIG_KEY, refusal, SEED_INSTALLATION, seedWith, type RefusalCase } from '../../test/config-fixtures.js';

const ID = '    id: compute-ssh\n';
const KUBERNETES = 'selects Kubernetes Compute, which this package does not provide';
const NO_COMPUTE = 'drivers.compute: is required: select SSH Compute with id "compute-ssh"';
const COMPUTE_BLOCK = SEED_INSTALLATION.slice(0, SEED_INSTALLATION.indexOf('  configuration:\n    id: configuration-postgres'));

/** The seed's host port line replaced by `to`, which is not valid YAML: refused before any key is read. */
const invalidYaml = (name: string, to: string, why: string): RefusalCase => ({
  name,
  text: seedWith(['          port: 22\n', to]),
  key: undefined,
  line: `Installation document: invalid YAML: ${why}`,
});

const CASES: RefusalCase[] = [
  { name: 'missing drivers', text: 'occ:\n  publicUrl: https://occ.example.com\n', key: 'drivers.compute', line: `${NO_COMPUTE} (line 1)` },
  {
    name: 'missing drivers.compute',
    text: SEED_INSTALLATION.replace(COMPUTE_BLOCK, 'drivers:\n'),
    key: 'drivers.compute',
    line: `${NO_COMPUTE} (line 1)`,
  },
  { name: 'drivers not a mapping', text: 'drivers: compute-ssh\n', key: 'drivers', line: 'drivers: expected a mapping, got "compute-ssh" (line 1)' },
  { name: 'compute not a mapping', text: 'drivers:\n  compute: [compute-ssh]\n', key: 'drivers.compute', line: 'drivers.compute: expected a mapping, got a list (line 2)' },
  { name: 'Kubernetes id', text: seedWith([ID, '    id: compute-kubernetes\n']), key: 'drivers.compute.id', line: `drivers.compute.id: "compute-kubernetes" ${KUBERNETES} (line 3)` },
  { name: 'bare kubernetes id', text: seedWith([ID, '    id: kubernetes\n']), key: 'drivers.compute.id', line: `drivers.compute.id: "kubernetes" ${KUBERNETES} (line 3)` },
  {
    name: 'packaged id',
    text: seedWith([ID, '    id: "@acme/compute-nomad"\n']),
    key: 'drivers.compute.id',
    line: 'drivers.compute.id: "@acme/compute-nomad" names a Compute driver package, which this package does not provide (SSH Compute is selected with "compute-ssh") (line 3)',
  },
  {
    name: 'another driver package',
    text: seedWith([ID, '    id: compute-ssh\n    package: "@acme/compute-nomad"\n']),
    key: 'drivers.compute.package',
    line: 'drivers.compute.package: names another driver package; this one is "@occ-ssh/compute-driver", got "@acme/compute-nomad" (line 4)',
  },
  { name: 'missing id', text: seedWith([ID, '']), key: 'drivers.compute.id', line: 'drivers.compute.id: is required: select SSH Compute with "compute-ssh" (line 2)' },
  { name: 'id not a string', text: seedWith([ID, '    id: 7\n']), key: 'drivers.compute.id', line: 'drivers.compute.id: expected a string, got 7 (line 3)' },
  { name: 'missing configuration', text: 'drivers:\n  compute:\n    id: compute-ssh\n', key: CONFIG_KEY, line: `${CONFIG_KEY}: is required (line 2)` },
  { name: 'null configuration', text: 'drivers:\n  compute:\n    id: compute-ssh\n    configuration:\n', key: CONFIG_KEY, line: `${CONFIG_KEY}: expected a mapping, got null (line 4)` },
  {
    name: 'Sandbox composition',
    text: SEED_INSTALLATION.replace('occ:\n', '  sandbox:\n    id: sandbox-gvisor\nocc:\n'),
    key: 'drivers.sandbox',
    line: 'drivers.sandbox: SSH Compute does not compose with a Sandbox driver (line 33)',
  },
  invalidYaml('YAML syntax error', '          port: 22\n         user: root\n', 'the indentation is wrong (line 13)'),
  invalidYaml('bad escape', '          port: "\\q"\n', 'a double-quoted string has an invalid escape sequence (line 12)'),
  invalidYaml('unresolved alias', '          port: *nope\n', 'an alias is unresolved or expands beyond the allowed size'),
  invalidYaml('duplicate key', '          port: 22\n          port: 2222\n', 'a key is repeated in the same mapping (line 13)'),
  { name: 'two YAML documents', text: `${SEED_INSTALLATION}---\nother: 1\n`, key: undefined, line: 'Installation document: invalid YAML: the file holds more than one YAML document (line 36)' },
  { name: 'list document', text: '- drivers\n- compute\n', key: undefined, line: 'Installation document: expected a mapping, got a list (line 1)' },
  { name: 'scalar document', text: 'compute-ssh\n', key: undefined, line: 'Installation document: expected a mapping, got "compute-ssh" (line 1)' },
  { name: 'empty document', text: '# nothing here\n', key: undefined, line: 'Installation document: is empty; expected a mapping that selects drivers.compute' },
];

describe('refused Installation documents', () => {
  for (const refused of CASES) it(refused.name, () => assertRefusal(refused));

  it('accepts this package selected by name, with any selection id', () => {
    assert.doesNotThrow(() => refusalFree(seedWith([ID, '    id: ssh-fleet\n    package: "@occ-ssh/compute-driver"\n'])));
  });

  it('accepts an explicitly empty Sandbox selection', () => {
    assert.doesNotThrow(() => refusalFree(`${SEED_INSTALLATION.replace('occ:\n', '  sandbox: ~\nocc:\n')}`));
  });

  it('reports a Sandbox driver beside configuration problems, in document order', () => {
    const text = seedWith(['          port: 22\n', '          port: 0\n']).replace('occ:\n', '  sandbox:\n    id: sandbox-gvisor\nocc:\n');
    const error = refusal(text);
    assert.equal(error.details.key, `${CONFIG_KEY}.hosts.stable.port`);
    assert.deepEqual(error.message.split('\n'), [
      `${CONFIG_KEY}.hosts.stable.port: expected an integer from 1 to 65535, got 0 (line 12)`,
      'drivers.sandbox: SSH Compute does not compose with a Sandbox driver (line 33)',
    ]);
  });

  it('does not validate a foreign Compute configuration', () => {
    const error = refusal(seedWith([ID, '    id: compute-kubernetes\n'], ['          port: 22\n', '          port: 0\n']));
    assert.equal(error.message.split('\n').length, 1);
  });
});

function refusalFree(text: string): void {
  assert.throws(() => refusal(text), /expected the Installation to be refused/);
}
