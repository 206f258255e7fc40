// The one shell string in the system: the remote command line sshd hands to the host's shell.

/** Words a POSIX shell takes literally, unquoted. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

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
