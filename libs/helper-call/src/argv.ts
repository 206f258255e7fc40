// The helper's argv on the host, which remoteCommand (@occ-ssh/ssh-client: the one shell string in
// the system) renders into the command line sshd hands to the host's shell.
import { safePathProblem } from '@occ-ssh/protocol';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

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
