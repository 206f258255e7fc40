// The one shell string in the system: the remote command sshd hands to the host's shell.
import { safePathProblem } from '@occ-ssh/protocol';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Security: both parts are checked against character sets that need no quoting in a POSIX
 * shell (a safe absolute path, base64), so nothing from input can change the command.
 */
export function remoteCommand(nodePath: string, argument: string): string {
  const problem = safePathProblem(nodePath);
  if (problem) throw new TypeError(`nodePath cannot be used in a remote command: ${problem}`);
  if (!BASE64.test(argument)) throw new TypeError('operation argument is not base64');
  return `${nodePath} - ${argument}`;
}
