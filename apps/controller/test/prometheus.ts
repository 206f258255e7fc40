// A real Prometheus from Debian's package for the dashboard test: found on PATH, or fetched once with
// apt (`apt-get download`) and unpacked under /var/tmp, then run on loopback with a temp directory.
// Unpacked rather than installed: installing the package starts a system service listening on every
// interface, which a test machine must not get as a side effect.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CACHE = '/var/tmp/occ-ssh-prometheus';

function onPath(tool: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(':').filter(Boolean)) {
    try {
      accessSync(path.join(dir, tool), constants.X_OK);
      return path.join(dir, tool);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The prometheus binary: the machine's, else Debian's package unpacked into the cache (root, as the test hosts need). */
export async function ensurePrometheus(): Promise<string> {
  const installed = onPath('prometheus');
  if (installed) return installed;
  const cached = path.join(CACHE, 'usr/bin/prometheus');
  if (existsSync(cached)) return cached;
  if (process.getuid?.() !== 0) throw new Error('the dashboard test needs prometheus (Debian package `prometheus`), or root to fetch it with apt');
  const work = mkdtempSync(path.join(tmpdir(), 'occ-ssh-prometheus-deb-'));
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    await run('apt-get', ['update', '-qq'], { env });
    await run('apt-get', ['download', 'prometheus'], { cwd: work, env });
    const deb = readdirSync(work).find((name) => name.endsWith('.deb'));
    if (!deb) throw new Error('apt-get download prometheus left no .deb');
    await run('dpkg-deb', ['-x', path.join(work, deb), path.join(work, 'root')]);
    // Another run may have finished first; either copy is the same package.
    if (!existsSync(cached)) renameSync(path.join(work, 'root'), CACHE);
    return cached;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A free loopback port (the kernel's choice, released for the child to take). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RunningPrometheus {
  /** `http://127.0.0.1:<port>` */
  url: string;
  version: string;
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  labelValues(label: string, match: string): Promise<string[]>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function api<T>(url: string): Promise<T> {
  const response = await fetch(url);
  const body = (await response.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`${url}: ${body.error ?? response.status}`);
  return body.data;
}

/** Starts prometheus on loopback scraping `target` every second, with `metricRelabel` rules; stopped and removed on dispose. */
export async function startPrometheus(binary: string, target: string, metricRelabel: object[]): Promise<RunningPrometheus> {
  const dir = mkdtempSync(path.join(tmpdir(), 'occ-ssh-prometheus-'));
  const port = await freePort();
  const config = {
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    scrape_configs: [{ job_name: 'occ-ssh', static_configs: [{ targets: [target] }], metric_relabel_configs: metricRelabel }],
  };
  // JSON is YAML: no YAML writer needed.
  writeFileSync(path.join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
  const args = [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`];
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i += 1) {
      if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}: ${stderr}`);
      const ready = await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (i >= 300) throw new Error(`prometheus not ready after 30 s: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const { version } = await api<{ version: string }>(`${url}/api/v1/status/buildinfo`);
    return {
      url,
      version,
      query: (expr) => api(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`).then((data) => (data as { result: { metric: Record<string, string>; value: [number, string] }[] }).result),
      labelValues: (label, match) => api<string[]>(`${url}/api/v1/label/${encodeURIComponent(label)}/values?match[]=${encodeURIComponent(match)}`),
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
