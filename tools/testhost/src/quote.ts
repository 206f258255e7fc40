// Quotes argv for the remote POSIX shell that sshd runs the command line through.

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One word for sh: left alone when plainly safe, otherwise single-quoted with ' spelled '\''. */
export function shellQuote(arg: string): string {
  if (arg.includes('\0')) throw new Error('a NUL byte cannot be passed through a remote shell');
  if (SAFE.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function shellCommandLine(argv: readonly string[]): string {
  if (argv.length === 0) throw new Error('empty argv');
  return argv.map(shellQuote).join(' ');
}
