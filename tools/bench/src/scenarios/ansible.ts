// A full deploy cycle (prepare, activate, retire the previous revision) through the
// driver against an Ansible playbook (bench/ansible/deploy.yml) doing the same host steps on the
// same python host with the same key and known_hosts file. Runs alternate between the two, so
// both see the same load.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sshGatewayConfigurationDocument } from '@occ-ssh/controller/internal';
import { accountName, agentLayout, renderLaunchEnvironment, renderUnit, revHash, type AgentLayout } from '@occ-ssh/markers';
import { collect } from '@occ-ssh/ssh-client';
import { progress, type BenchContext } from '../hosts/context.js';
import { bindingFor, configurationFor, ObservedDriver, revisionFor, TRANSPORTS, UNIT_DIRECTORY, type BenchHost, type Transport } from '../hosts/installation.js';
import { runSsh } from '../hosts/ssh.js';
import { median, ratio, summarize, type Summary } from '../report/stats.js';

const PLAYBOOK = fileURLToPath(new URL('../../../../bench/ansible/deploy.yml', import.meta.url));
const ANSIBLE_ROOT = '/var/lib/ansible-bench';
const ANSIBLE_PORT = 18990;
const ANSIBLE_UNIT = 'ansible-bench-gateway.service';
const NAMESPACE = 'bench';

interface AnsibleConfiguration {
  name: 'defaults' | 'pipelining';
  /** The ssh connection settings Ansible used (ssh_args is Ansible's default, not overridden). */
  sshArgs: string;
  pipelining: boolean;
  controlPersist: string;
  gatherFacts: false;
}

interface AnsibleRuns {
  configuration: AnsibleConfiguration;
  /** The first run (creates the account; opens Ansible's ControlPersist master). */
  firstRunMs: number;
  /** Wall time of `ansible-playbook`, warm runs. */
  runMs: Summary;
}

interface DriverCycles {
  transport: Transport;
  cycleMs: Summary;
  prepareMs: Summary;
  activateMs: Summary;
  retireMs: Summary;
}

export interface AnsibleResult {
  ansibleVersion: string;
  /** An empty play on localhost: Ansible's own start-up, included in every run. */
  emptyPlaybookMs: Summary;
  ansible: AnsibleRuns[];
  driver: DriverCycles[];
  /** Fastest Ansible configuration's median over each transport's median cycle; the Ansible target (≥ 5) applies. */
  speedup: Record<Transport, number>;
  /** The same with Ansible's own start-up (empty playbook) subtracted from its runs. */
  speedupExcludingAnsibleStartup: Record<Transport, number>;
  readyAfterMs: number;
}

/** Installs Debian's ansible-core when ansible-playbook is missing. */
async function ensureAnsible(): Promise<string> {
  const version = () => collect('ansible-playbook', ['--version'], { timeoutMs: 60_000 });
  let found = await version();
  if (found.exitCode !== 0) {
    progress('ansible-playbook not found: installing ansible-core with apt-get');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const echo = (chunk: Buffer) => process.stderr.write(chunk);
    const aptGet = (args: string[]) => collect('apt-get', args, { env, timeoutMs: 30 * 60_000, onStderr: echo, stopOnOverflow: false });
    const install = () => aptGet(['install', '-y', '--no-install-recommends', 'ansible-core']);
    if ((await install()).exitCode !== 0) {
      await aptGet(['update']);
      if ((await install()).exitCode !== 0) throw new Error('apt-get install ansible-core failed');
    }
    found = await version();
  }
  return (found.stdout.split('\n')[0] ?? '').trim();
}

/** One ansible-playbook run: its time, exit, and output (stdout, then the head of stderr) for the error. */
async function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ ms: number; code: number | null; output: string }> {
  const started = performance.now();
  const r = await collect(command, args, { env, cwd, timeoutMs: 30 * 60_000, maxStdoutBytes: 64 * 1024 * 1024, stderrKeptBytes: 64 * 1024 });
  return { ms: performance.now() - started, code: r.exitCode, output: `${r.stdout}${r.stderrHead}` };
}

class AnsibleSide {
  private readonly dir: string;
  private readonly layout: AgentLayout;
  private readonly account: string;
  private readonly password = randomBytes(24).toString('hex');
  private readonly baseEnv: NodeJS.ProcessEnv;

  constructor(
    scratch: string,
    private readonly host: BenchHost,
    private readonly readyAfterMs: number,
  ) {
    this.dir = join(scratch, 'ansible');
    mkdirSync(join(this.dir, 'cp'), { recursive: true, mode: 0o700 });
    mkdirSync(join(this.dir, 'tmp'), { recursive: true, mode: 0o700 });
    const namespaceId = 'ns-ansible-bench';
    const agentId = 'agent-ansible-bench';
    const base = agentLayout(ANSIBLE_ROOT, UNIT_DIRECTORY, namespaceId, agentId);
    this.layout = { ...base, unitName: ANSIBLE_UNIT, unitFile: `${UNIT_DIRECTORY}/${ANSIBLE_UNIT}` };
    this.account = accountName('ansbench', namespaceId, agentId);
    const inventory = {
      all: {
        hosts: {
          bench: {
            ansible_host: host.address,
            ansible_port: host.port,
            ansible_user: 'root',
            ansible_ssh_private_key_file: host.identityFile,
            ansible_ssh_common_args: `-o UserKnownHostsFile=${host.knownHostsFile} -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes -o BatchMode=yes`,
            ansible_python_interpreter: '/usr/bin/python3',
          },
        },
      },
    };
    writeFileSync(join(this.dir, 'inventory.yml'), JSON.stringify(inventory, null, 2));
    writeFileSync(join(this.dir, 'empty.yml'), '- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks: []\n');
    this.baseEnv = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/root',
      LANG: 'C.UTF-8',
      ANSIBLE_HOST_KEY_CHECKING: 'True',
      ANSIBLE_SSH_CONTROL_PATH_DIR: join(this.dir, 'cp'),
      ANSIBLE_LOCAL_TEMP: join(this.dir, 'tmp'),
      ANSIBLE_RETRY_FILES_ENABLED: 'False',
      ANSIBLE_NOCOLOR: '1',
      ANSIBLE_LOCALHOST_WARNING: 'False',
      ANSIBLE_INVENTORY_UNPARSED_WARNING: 'False',
    };
  }

  async emptyRun(): Promise<number> {
    const result = await run('ansible-playbook', ['-i', 'localhost,', 'empty.yml'], this.baseEnv, this.dir);
    if (result.code !== 0) throw new Error(`empty ansible-playbook failed:\n${result.output.slice(-2000)}`);
    return result.ms;
  }

  /** One cycle: deploy revision `number`, removing the snapshot of `number - 1`. */
  async cycle(number: number, pipelining: boolean): Promise<number> {
    const cycleDir = join(this.dir, `cycle-${number}-${pipelining ? 'p' : 'd'}`);
    mkdirSync(cycleDir, { recursive: true });
    const revisionId = `rev-ansible-${number}`;
    const revName = revHash(revisionId);
    const previous = number > 1 ? `${this.layout.revisions}/${revHash(`rev-ansible-${number - 1}`)}` : '';
    const document = sshGatewayConfigurationDocument({ gateway: { mode: 'local', bind: 'loopback' }, fixtureGateway: { readyAfterMs: this.readyAfterMs } });
    const unit = renderUnit({
      namespaceId: 'ns-ansible-bench',
      agentId: 'agent-ansible-bench',
      account: this.account,
      nodePath: this.host.nodePath,
      openclawPath: this.host.fixtureGatewayPath,
      port: ANSIBLE_PORT,
      root: ANSIBLE_ROOT,
      layout: this.layout,
      managedPassword: true,
    });
    const files = {
      config_src: [join(cycleDir, 'openclaw.json'), document.text],
      marker_src: [join(cycleDir, 'revision.json'), `${JSON.stringify({ kind: 'revision', revisionId, revisionNumber: number, configurationHash: document.hash })}\n`],
      unit_src: [join(cycleDir, 'unit'), unit],
      launch_env_src: [join(cycleDir, 'launch.env'), renderLaunchEnvironment({})],
      served_src: [join(cycleDir, 'served.json'), `${JSON.stringify({ kind: 'served', revisionId, port: ANSIBLE_PORT })}\n`],
    } as const;
    for (const [path, text] of Object.values(files)) writeFileSync(path, text);
    const vars = {
      account: this.account,
      root: ANSIBLE_ROOT,
      agent_dir: this.layout.dir,
      home: this.layout.home,
      state: this.layout.state,
      revisions: this.layout.revisions,
      rev_dir: `${this.layout.revisions}/${revName}`,
      rev_name: revName,
      prev_rev_dir: previous,
      current: this.layout.current,
      served: this.layout.served,
      password_file: this.layout.passwordFile,
      launch_env_file: this.layout.launchEnvFile,
      password: this.password,
      unit_name: ANSIBLE_UNIT,
      unit_path: this.layout.unitFile,
      port: ANSIBLE_PORT,
      ...Object.fromEntries(Object.entries(files).map(([key, [path]]) => [key, path])),
    };
    writeFileSync(join(cycleDir, 'vars.json'), JSON.stringify(vars));
    const env = { ...this.baseEnv, ANSIBLE_PIPELINING: pipelining ? 'True' : 'False' };
    const result = await run('ansible-playbook', ['-i', 'inventory.yml', '-e', `@${join(cycleDir, 'vars.json')}`, PLAYBOOK], env, this.dir);
    if (result.code !== 0) throw new Error(`ansible-playbook failed (exit ${String(result.code)}):\n${result.output.slice(-3000)}`);
    return result.ms;
  }

  /** Asks Ansible's persistent masters to exit; they are keyed by socket files in our control directory. */
  async close(): Promise<void> {
    const cp = join(this.dir, 'cp');
    for (const socket of readdirSync(cp)) {
      await runSsh(['-o', `ControlPath=${join(cp, socket)}`, '-O', 'exit', '--', this.host.address]).catch(() => undefined);
    }
  }
}

export async function measureAnsible(ctx: BenchContext, host: BenchHost): Promise<AnsibleResult> {
  const ansibleVersion = await ensureAnsible();
  const side = new AnsibleSide(ctx.scratch, host, ctx.plan.readyAfterMs);
  const configurations: AnsibleConfiguration[] = [
    { name: 'defaults', sshArgs: '-C -o ControlMaster=auto -o ControlPersist=60s', pipelining: false, controlPersist: '60s', gatherFacts: false },
    { name: 'pipelining', sshArgs: '-C -o ControlMaster=auto -o ControlPersist=60s', pipelining: true, controlPersist: '60s', gatherFacts: false },
  ];
  const hosts = { [NAMESPACE]: host };
  const binding = bindingFor(NAMESPACE, 'cycle');
  const drivers = TRANSPORTS.map((transport) => new ObservedDriver(configurationFor(hosts, { transport })));
  const ansibleMs = configurations.map(() => [] as number[]);
  const firstRun: number[] = [];
  const cycles = TRANSPORTS.map(() => ({ cycle: [] as number[], prepare: [] as number[], activate: [] as number[], retire: [] as number[] }));
  const empty: number[] = [];
  let ansibleNumber = 0;
  let driverNumber = 0;
  try {
    for (const observed of drivers) {
      await observed.driver.ensureNamespace(binding.namespace);
      observed.driver.bindAgent(binding);
    }
    const driverCycle = async (index: number, keep: boolean) => {
      const { driver } = drivers[index]!;
      driverNumber += 1;
      const next = revisionFor(binding, driverNumber, ctx.plan.readyAfterMs);
      const t0 = performance.now();
      await driver.prepareRevision(next);
      const t1 = performance.now();
      await driver.activateRevision(next);
      const t2 = performance.now();
      if (driverNumber > 1) await driver.retireRevision(revisionFor(binding, driverNumber - 1, ctx.plan.readyAfterMs));
      const t3 = performance.now();
      if (!keep) return;
      const c = cycles[index]!;
      c.cycle.push(t3 - t0);
      c.prepare.push(t1 - t0);
      c.activate.push(t2 - t1);
      c.retire.push(t3 - t2);
    };
    for (let round = -1; round < ctx.plan.ansibleRuns; round += 1) {
      const keep = round >= 0;
      progress(`ansible: round ${round + 2} of ${ctx.plan.ansibleRuns + 1}${keep ? '' : ' (warm-up)'}`);
      empty.push(await side.emptyRun());
      for (const [index, configuration] of configurations.entries()) {
        ansibleNumber += 1;
        const ms = await side.cycle(ansibleNumber, configuration.pipelining);
        if (keep) ansibleMs[index]!.push(ms);
        else firstRun.push(ms);
      }
      for (let repeat = 0; repeat < ctx.plan.driverCyclesPerRun; repeat += 1) {
        for (const index of TRANSPORTS.keys()) await driverCycle(index, keep);
      }
    }
  } finally {
    for (const observed of drivers) await observed.close();
    await side.close();
  }
  const ansible = configurations.map((configuration, index) => ({ configuration, firstRunMs: Math.round(firstRun[index] ?? Number.NaN), runMs: summarize(ansibleMs[index]!) }));
  const driver = TRANSPORTS.map((transport, index) => {
    const c = cycles[index]!;
    return { transport, cycleMs: summarize(c.cycle), prepareMs: summarize(c.prepare), activateMs: summarize(c.activate), retireMs: summarize(c.retire) };
  });
  const fastest = Math.min(...ansible.map((a) => a.runMs.median));
  const emptyMedian = median(empty);
  const speedup = Object.fromEntries(driver.map((d) => [d.transport, ratio(fastest, d.cycleMs.median)])) as Record<Transport, number>;
  const speedupExcludingAnsibleStartup = Object.fromEntries(driver.map((d) => [d.transport, ratio(fastest - emptyMedian, d.cycleMs.median)])) as Record<Transport, number>;
  return { ansibleVersion, emptyPlaybookMs: summarize(empty), ansible, driver, speedup, speedupExcludingAnsibleStartup, readyAfterMs: ctx.plan.readyAfterMs };
}
