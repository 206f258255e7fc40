// Process entry of the occ-ssh CLI. Ctrl-C stops waiting, closes SSH masters and removes the
// control and jump directories before exiting 130; a second Ctrl-C exits at once.
import { EXIT, runCli } from './main.js';

const interrupt = new AbortController();
process.once('SIGINT', () => {
  interrupt.abort();
  process.once('SIGINT', () => process.exit(EXIT.interrupted));
});
const code = await runCli(process.argv.slice(2), process.stdout, process.stderr, { signal: interrupt.signal });
// Work that was interrupted may still hold timers or child processes: they are not waited for.
process.exit(code);
