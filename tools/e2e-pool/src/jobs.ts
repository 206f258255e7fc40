// What the pool runs: every real-host test file of every project with an `e2e` script, each run
// the way that script runs it (node:test with tsx and the netguard, from the project's directory).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MEASURED_SECONDS, UNMEASURED_SECONDS } from './durations.js';
import { SECOND_IMAGE, SECOND_IMAGE_FILES } from './second-image.js';

export interface Job {
  /** Workspace-relative path of the test file: the job's name in logs and in the summary. */
  label: string;
  /** The project directory (workspace-relative) the file runs in. */
  project: string;
  argv: string[];
  /** Expected seconds, for longest-first ordering. */
  weight: number;
  /** Added to the file's environment: which host image its hosts boot (none for the default image). */
  env?: Record<string, string>;
}

const REAL_HOST_TEST = /\.(host|e2e)\.test\.ts$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(full);
    return entry.isFile() && REAL_HOST_TEST.test(entry.name) ? [full] : [];
  });
}

const hasE2eScript = (dir: string) => {
  try {
    return typeof (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> }).scripts?.['e2e'] === 'string';
  } catch {
    return false;
  }
};

/**
 * The argv a project's e2e script gives node for one file, with paths relative to the project, and
 * the TAP reporter the pool reads counts and failures from (from Node 24 on, a pipe gets `spec`).
 */
function fileArgv(root: string, project: string, file: string): string[] {
  const netguard = path.relative(path.join(root, project), path.join(root, 'tools/netguard/src/register.ts'));
  return ['--import', 'tsx', '--import', netguard, '--test', '--test-reporter=tap', path.relative(path.join(root, project), path.join(root, file))];
}

/** Every `*.host.test.ts` and `*.e2e.test.ts` under `src/` of apps/* and tools/* projects that have an e2e script. */
export function discoverJobs(root: string): Job[] {
  const projects = ['apps', 'tools'].flatMap((group) =>
    readdirSync(path.join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && hasE2eScript(path.join(root, group, entry.name)))
      .map((entry) => `${group}/${entry.name}`),
  );
  return projects.flatMap((project) =>
    filesUnder(path.join(root, project, 'src'))
      .map((full) => path.relative(root, full))
      .sort()
      .map((label) => ({ label, project, argv: fileArgv(root, project, label), weight: MEASURED_SECONDS[label] ?? UNMEASURED_SECONDS })),
  );
}

/** The file again on the second image, labelled `<file> [debian13-node26]`. */
function onSecondImage(job: Job): Job {
  const label = `${job.label} [${SECOND_IMAGE.name}]`;
  return { ...job, label, weight: MEASURED_SECONDS[label] ?? job.weight, env: { ...SECOND_IMAGE.env } };
}

/** Every file on the default image, and the named subset again on the second image, in one pool (the pool's test checks each named file exists). */
export function withSecondImage(jobs: readonly Job[]): Job[] {
  return [...jobs, ...jobs.filter((job) => Object.hasOwn(SECOND_IMAGE_FILES, job.label)).map(onSecondImage)];
}

/** Longest first, so the last files to start are short ones and the pool ends close together; ties by name. */
export function longestFirst(jobs: readonly Job[]): Job[] {
  return [...jobs].sort((a, b) => b.weight - a.weight || a.label.localeCompare(b.label));
}

/** Jobs whose label contains any of the filters (all jobs without filters). */
export function selectJobs(jobs: readonly Job[], filters: readonly string[]): Job[] {
  return filters.length === 0 ? [...jobs] : jobs.filter((job) => filters.some((filter) => job.label.includes(filter)));
}
