// Command line for the harness: build images, start and stop long-lived hosts, reap leftovers.
import { startPersistentHost } from './host.js';
import { readHostRecord } from './host-record.js';
import { parseCliArgs, UsageError, USAGE, type Command, type Parsed } from './cli-args.js';
import { HOST_PATHS } from './paths.js';
import { reapTestHosts } from './reap.js';
import { ensureRootfs } from './rootfs.js';
import { downHost } from './teardown.js';

const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value)}\n`);

/** One handler per command: the table's type makes a new command in cli-args.ts COMMANDS fail the typecheck until it is handled. */
const HANDLERS: Record<Command, (args: Parsed) => Promise<void>> = {
  build: async (args) => print({ variant: args.variant, ...args.image, ...(await ensureRootfs(args.variant, args.image)) }),
  up: async (args) => {
    // The control socket is this process's own master connection's, not for other tools to share.
    const { target } = await startPersistentHost({ name: args.name ?? '', variant: args.variant, image: args.image });
    const { controlPath: _ownMaster, ...reachable } = target;
    print({ ...reachable, ...HOST_PATHS });
  },
  down: async (args) => {
    const rec = readHostRecord(args.name ?? '');
    if (!rec) throw new Error(`no test host named ${args.name ?? ''}`);
    await downHost(rec);
    print({ down: rec.name });
  },
  reap: async () => print(await reapTestHosts()),
};

async function main(argv: readonly string[]): Promise<void> {
  const args = parseCliArgs(argv);
  await HANDLERS[args.command](args);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const usage = e instanceof UsageError;
  process.stderr.write(`testhost: ${(e as Error).message}${usage ? `\n${USAGE}` : ''}\n`);
  process.exit(usage ? 2 : 1);
});
