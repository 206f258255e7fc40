// Where a helper call's time goes on the host, without ssh: `node -e 0`, the shipped brotli
// loader, and the same bundle uncompressed, each running a read-only operation; the helper's own
// `timings.totalMs` splits loading from work.
import { join } from 'node:path';
import { loadHelperArtifact, runtimeSettingsFor } from '@occ-ssh/controller/internal';
import { canonicalHash } from '@occ-ssh/markers';
import { helperInput, sealOperation, type SealedOperation } from '@occ-ssh/helper-call';
import { encodeArgument, makeEnvelope, type Envelope, type OperationArgs, type OperationName } from '@occ-ssh/protocol';
import { innerBundle } from './bytes.js';
import { progress, type BenchContext } from '../hosts/context.js';
import { bindingFor, configurationFor, type BenchHost } from '../hosts/installation.js';
import { ControlMaster } from '../hosts/ssh.js';
import { summarize, type Summary } from '../report/stats.js';

/** Runs on the host: each variant spawned in turn, `samples` times, timed with hrtime. */
const TIMER = `'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = {};
for (let i = 0; i < plan.samples; i++) {
  for (const v of plan.variants) {
    const input = v.stdin ? fs.readFileSync(v.stdin) : '';
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, v.args, { input, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    let helperMs = null;
    const last = (r.stdout || '').trim().split('\\n').pop();
    try { helperMs = JSON.parse(last).timings.totalMs; } catch {}
    (out[v.name] = out[v.name] || []).push({ ms, helperMs, status: r.status });
  }
}
process.stdout.write(JSON.stringify(out));
`;

interface StartupVariant {
  name: string;
  wallMs: Summary;
  helperTotalMs: Summary | null;
}

export interface StartupResult {
  samples: number;
  variants: StartupVariant[];
  /** Medians: node itself, loading the helper (bundle minus node minus work), the brotli loader's extra. */
  derived: { nodeMs: number; helperLoadMs: number; brotliLoaderExtraMs: number; probeWorkMs: number; verifyWorkMs: number };
}

const NAMESPACE = 'bench';
const DIR = '/root/occ-bench-startup';

function argumentFor<O extends OperationName>(host: BenchHost, operation: O, args: OperationArgs<O>): SealedOperation {
  const runtime = runtimeSettingsFor(configurationFor({ [NAMESPACE]: host }, { transport: 'system-ssh' }), NAMESPACE);
  return sealOperation(encodeArgument(makeEnvelope({ operation, args, runtime, configurationHash: canonicalHash(runtime), requestId: `bench-${operation}` }) as Envelope));
}

export async function measureStartup(ctx: BenchContext, host: BenchHost): Promise<StartupResult> {
  progress(`helper start-up on the host, ${ctx.plan.startupSamples} samples per variant`);
  const artifact = loadHelperArtifact().bytes;
  const binding = bindingFor(NAMESPACE, 'latency');
  const owner = { namespace: binding.namespace, agent: { id: binding.agent.id }, servicePrincipal: { id: binding.agent.servicePrincipalId } };
  const probe = argumentFor(host, 'probe', {});
  const verify = argumentFor(host, 'verify-revision', { owner, revision: { id: `rev-${binding.agent.id}-1`, number: 1 } });
  const master = await ControlMaster.start(host, join(ctx.scratch, 'startup-master'));
  try {
    await master.sh(`mkdir -p ${DIR}`);
    // Each input is what the driver sends: the sealed operation's prelude, then the code.
    for (const [name, sealed] of [
      ['probe', probe],
      ['verify', verify],
    ] as const) {
      await master.sh(`cat > ${DIR}/loader-${name}.cjs`, helperInput(artifact, sealed));
      await master.sh(`cat > ${DIR}/bundle-${name}.cjs`, helperInput(innerBundle(artifact), sealed));
    }
    await master.sh(`cat > ${DIR}/timer.cjs`, TIMER);
    const plan = {
      samples: ctx.plan.startupSamples,
      variants: [
        { name: 'node -e 0', args: ['-e', '0'] },
        { name: 'loader: probe', args: ['-', probe.argument], stdin: `${DIR}/loader-probe.cjs` },
        { name: 'bundle: probe', args: ['-', probe.argument], stdin: `${DIR}/bundle-probe.cjs` },
        { name: 'loader: verify-revision', args: ['-', verify.argument], stdin: `${DIR}/loader-verify.cjs` },
        { name: 'bundle: verify-revision', args: ['-', verify.argument], stdin: `${DIR}/bundle-verify.cjs` },
      ],
    };
    await master.sh(`cat > ${DIR}/plan.json`, JSON.stringify(plan));
    const raw = JSON.parse(await master.sh(`${host.nodePath} ${DIR}/timer.cjs ${DIR}/plan.json`)) as Record<string, { ms: number; helperMs: number | null; status: number }[]>;
    const variants: StartupVariant[] = Object.entries(raw).map(([name, runs]) => {
      if (runs.some((run) => run.status !== 0)) throw new Error(`start-up variant "${name}" failed on the host`);
      const helper = runs.map((run) => run.helperMs).filter((ms): ms is number => ms !== null);
      return { name, wallMs: summarize(runs.map((run) => run.ms)), helperTotalMs: helper.length ? summarize(helper) : null };
    });
    const med = (name: string) => variants.find((v) => v.name === name)?.wallMs.median ?? Number.NaN;
    const work = (name: string) => variants.find((v) => v.name === name)?.helperTotalMs?.median ?? Number.NaN;
    const round = (value: number) => Math.round(value * 10) / 10;
    return {
      samples: ctx.plan.startupSamples,
      variants,
      derived: {
        nodeMs: med('node -e 0'),
        helperLoadMs: round(med('bundle: verify-revision') - med('node -e 0') - work('bundle: verify-revision')),
        brotliLoaderExtraMs: round((med('loader: probe') - med('bundle: probe') + med('loader: verify-revision') - med('bundle: verify-revision')) / 2),
        probeWorkMs: work('bundle: probe'),
        verifyWorkMs: work('bundle: verify-revision'),
      },
    };
  } finally {
    await master.sh(`rm -rf ${DIR}`).catch(() => undefined);
    master.stop();
  }
}
