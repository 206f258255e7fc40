// Process entry of the occ-ssh CLI. Ctrl-C, SIGTERM (a service manager's stop) and SIGHUP (a closed
// terminal) each stop waiting, close SSH masters and remove the control and jump directories before
// exiting 128 + the signal's number (130, 143, 129), as a shell reports a command a signal ended; a
// second signal exits at once with its own code.
import { SIGNAL_EXIT, runCli, type StopSignal } from './main.js';

const interrupt = new AbortController();
const SIGNALS = Object.keys(SIGNAL_EXIT) as StopSignal[];
const onSignal = (name: StopSignal) => {
  for (const each of SIGNALS) process.removeListener(each, onSignal);
  interrupt.abort(name);
  for (const each of SIGNALS) process.once(each, () => process.exit(SIGNAL_EXIT[each]));
};
for (const name of SIGNALS) process.once(name, onSignal);
// A reader that went away (`occ-ssh status | head`) ends the command as a signal would, through the
// same clean stop, instead of an unhandled EPIPE; nothing more is written to it.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  if (!interrupt.signal.aborted) onSignal('SIGINT');
});
const code = await runCli(process.argv.slice(2), process.stdout, process.stderr, { signal: interrupt.signal });
// Work that was interrupted may still hold timers or child processes: they are not waited for.
process.exit(code);
