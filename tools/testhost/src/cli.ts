// Command line for the harness: build images, start and stop long-lived hosts, reap leftovers.
import { startPersistentHost } from './host.js';
import { readHostRecord } from './host-record.js';
import { parseCliArgs, UsageError, USAGE } from './cli-args.js';
import { HOST_PATHS } from './paths.js';
import { reapTestHosts } from './reap.js';
import { ensureRootfs } from './rootfs.js';
import { downHost } from './teardown.js';

async function main(argv: readonly string[]): Promise<void> {
  const args = parseCliArgs(argv);
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
  switch (args.command) {
    case 'build':
      print({ variant: args.variant, ...(await ensureRootfs(args.variant)) });
      return;
    case 'up': {
      const { target } = await startPersistentHost({ name: args.name ?? '', variant: args.variant });
      print({ ...target, ...HOST_PATHS });
      return;
    }
    case 'down': {
      const rec = readHostRecord(args.name ?? '');
      if (!rec) throw new Error(`no test host named ${args.name ?? ''}`);
      await downHost(rec);
      print({ down: rec.name });
      return;
    }
    case 'reap':
      print(await reapTestHosts());
      return;
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const usage = e instanceof UsageError;
  process.stderr.write(`testhost: ${(e as Error).message}${usage ? `\n${USAGE}` : ''}\n`);
  process.exit(usage ? 2 : 1);
});
