// The one shell string in the system: the remote command sshd hands to the host's shell, and the
// helper's argv it is rendered from.
import { safePathProblem } from '@occ-ssh/protocol';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** Words a POSIX shell takes literally, unquoted. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * The helper's argv on the host: `<nodePath> - <base64 header>`.
 * Security: both parts are checked against character sets that need no quoting in a POSIX shell
 * (a safe absolute path, base64), so nothing from input can change the command.
 */
export function helperArgv(nodePath: string, header: string): [string, '-', string] {
  const problem = safePathProblem(nodePath);
  if (problem) throw new TypeError(`nodePath cannot be used in a remote command: ${problem}`);
  if (!BASE64.test(header)) throw new TypeError('operation argument is not base64');
  return [nodePath, '-', header];
}

/**
 * Renders a remote argv as the command line sshd runs through `sh -c`. Plain words are left as
 * they are (a helper argv always is: the line reads `<nodePath> - <base64>`); any other word is
 * single-quoted, with `'` spelled `'\''`.
 */
export function remoteCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new TypeError('a remote command needs at least one word');
  return argv.map(shellWord).join(' ');
}

function shellWord(word: string): string {
  if (word.includes('\0')) throw new TypeError('a NUL byte cannot reach the remote shell');
  return PLAIN_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
