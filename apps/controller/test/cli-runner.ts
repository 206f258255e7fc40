// Test support for the CLI's host tests: occ-ssh run in-process against one Installation and ledger,
// with what it writes collected.
import { Writable } from 'node:stream';
import { runCli } from '../src/cli/main.js';

/** A stream that keeps what is written to it; `onWrite` sees each chunk as it comes. */
export function sink(onWrite?: (text: string) => void) {
  let text = '';
  return { stream: new Writable({ write: (chunk: Buffer, _e, done) => ((text += chunk.toString()), onWrite?.(chunk.toString()), done()) }), text: () => text };
}

/** `occ-ssh <argv> --config <config> --ledger <ledger>`, with its exit code, stdout and stderr. */
export function cliRunner(config: string, ledger: string) {
  return async (...argv: string[]) => {
    const out = sink();
    const err = sink();
    const code = await runCli([...argv, '--config', config, '--ledger', ledger], out.stream, err.stream);
    return { code, out: out.text(), err: err.text() };
  };
}
