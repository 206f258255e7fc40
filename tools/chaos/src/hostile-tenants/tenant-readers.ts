// Placeholder readers: the victim is activated with a secret-looking launch placeholder; each sibling
// (one in the victim's Namespace, one in another) reads what it can, once as its compromised gateway
// inside its unit and once as its account outside any unit: the unit directories, the shared root,
// /etc, /run, /tmp and /var, every /proc/<pid>/environ and cmdline, `systemctl show` and `systemctl
// cat` of the victim's unit, and the journal. Every dump is searched for the placeholder in every
// encoding. The gateways also probe what of the shared root, the accounts and the victim they can see.
import { agentHash, nsHash } from '@occ-ssh/markers';
import { gatewayEnviron, installTenantGateway, ROOT } from '@occ-ssh/test-support';
import { findSightings, groupSightings, type Corpus } from '../secrets/sightings.js';
import { placeholderReader, PROBE_FUNCTION, READER_SCRIPT } from './tenant-attacks.js';
import { activation, appears, must, readAsRoot, staged, stopUnit, type Tenant } from './tenant-calls.js';
import { readerSections, visibilityRows, type PlaceholderReaders, type Probe, type Seen } from './tenant-results.js';
import type { HostLink } from '../host/ssh.js';

const PLACEHOLDER_NAME = 'OCC_CHAOS_TENANT_REF';

/** What a reader's gateway probes: the way to its own files (listings judged), and what is not its own. */
function probesOf(reader: Tenant, victim: Tenant): Probe[] {
  const nsDir = (tenant: Tenant) => `${ROOT}/namespaces/${nsHash(tenant.owner.namespace.id)}`;
  const own = reader.layout;
  const sameNamespace = reader.owner.namespace.id === victim.owner.namespace.id;
  return [
    { path: ROOT, category: 'shared root', judgeStat: false, ownWay: ['namespaces'] },
    { path: `${ROOT}/.compute-lock`, category: 'shared root', judgeStat: true, ownWay: [] },
    { path: `${ROOT}/namespaces`, category: 'shared root', judgeStat: false, ownWay: [nsHash(reader.owner.namespace.id)] },
    { path: nsDir(reader), category: 'shared root', judgeStat: false, ownWay: ['agents'] },
    { path: `${nsDir(reader)}/agents`, category: 'sibling Agents', judgeStat: false, ownWay: [agentHash(reader.owner.agent.id)] },
    { path: own.dir, category: 'shared root', judgeStat: false, ownWay: ['home', 'state', 'current', 'revisions'] },
    { path: own.marker, category: 'shared root', judgeStat: true, ownWay: [] },
    { path: own.passwordFile, category: 'shared root', judgeStat: true, ownWay: [] },
    { path: `${ROOT}/accounts`, category: 'accounts directory', judgeStat: true, ownWay: [] },
    { path: `${ROOT}/accounts/${victim.account}.json`, category: 'accounts directory', judgeStat: true, ownWay: [] },
    ...(sameNamespace ? [] : [{ path: nsDir(victim), category: 'sibling Agents' as const, judgeStat: true, ownWay: [] }]),
    { path: victim.layout.dir, category: 'sibling Agents', judgeStat: true, ownWay: [] },
    { path: victim.layout.home, category: 'sibling Agents', judgeStat: true, ownWay: [] },
    { path: victim.layout.unitFile, category: 'reported', judgeStat: true, ownWay: [] },
  ];
}

/** The same probe as root: the truth each gateway's view is compared with. */
async function probeAsRoot(link: HostLink, paths: readonly string[]): Promise<Seen[]> {
  const script = `const probe = ${PROBE_FUNCTION}; process.stdout.write(JSON.stringify(JSON.parse(require('node:fs').readFileSync(0, 'utf8')).map(probe)));`;
  return JSON.parse(await link.run([link.nodePath, '-e', script], { input: JSON.stringify(paths) })) as Seen[];
}

export async function runPlaceholderReaders(link: HostLink, victim: Tenant, readers: readonly Tenant[], placeholder: string): Promise<PlaceholderReaders> {
  const result: PlaceholderReaders = { delivered: false, corpora: [], sightings: 0, found: [], visibility: [], problems: [] };
  const corpora: Corpus[] = [];
  const addDump = (vantage: string, text: string) => {
    const sections = readerSections(text);
    if (sections.length === 0) result.problems.push(`${vantage}: the dump has no sections`);
    for (const section of sections) corpora.push({ name: `${vantage}: ${section.name}`, text: section.text });
  };
  try {
    const prepared = await staged(link, victim);
    await must(link, victim, 'activate-revision', activation(prepared, 30_000, { [PLACEHOLDER_NAME]: placeholder }));
    result.delivered = (await gatewayEnviron(link, victim.owner)).includes(`${PLACEHOLDER_NAME}=${placeholder}`);
    if (!result.delivered) result.problems.push("the victim's gateway did not receive the placeholder");
    for (const reader of readers) {
      const probes = probesOf(reader, victim);
      const paths = probes.map((probe) => probe.path);
      reader.openclawPath = await installTenantGateway(link, `tn-${reader.name}`, placeholderReader(paths, victim.layout.unitName, ROOT));
      const readerPrepared = await staged(link, reader);
      await must(link, reader, 'activate-revision', activation(readerPrepared));
      const inside = JSON.parse((await readAsRoot(link, `${reader.layout.state}/visibility.json`)) ?? '[]') as Seen[];
      result.visibility.push(...visibilityRows(`${reader.name} gateway`, probes, inside, await probeAsRoot(link, paths)));
      if (await appears(link, `${reader.layout.state}/reads.txt`, 120_000)) addDump(`${reader.name} gateway`, (await readAsRoot(link, `${reader.layout.state}/reads.txt`)) ?? '');
      else result.problems.push(`${reader.name} gateway: its reads did not finish within 120 s`);
      // The same account outside any unit, as a shell in a login of its own would be.
      const outside = await link.exec(['runuser', '-u', reader.account, '--', 'sh', '-c', READER_SCRIPT, 'reader', victim.layout.unitName, ROOT], { timeoutMs: 180_000 });
      addDump(`${reader.name} account`, outside.stdout);
    }
  } catch (error) {
    result.problems.push(`attack could not run: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  } finally {
    for (const tenant of [victim, ...readers]) await stopUnit(link, tenant);
  }
  const sightings = findSightings([{ name: 'launch placeholder', value: placeholder }], corpora);
  result.sightings = sightings.length;
  result.found = groupSightings(sightings).map(({ corpus, encoding, count }) => ({ corpus, encoding, count }));
  result.corpora = corpora.map((corpus) => ({ name: corpus.name, bytes: Buffer.byteLength(corpus.text) }));
  return result;
}
