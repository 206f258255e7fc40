// The hosts an `ssh` argv would connect to: its destination and any jump hosts.

/** OpenSSH's options that take an argument (from its getopt string). */
const WITH_ARGUMENT = new Set('bcDEeFIiJLlmOopQRSWw'.split(''));

const hostOf = (spec: string) => {
  const noUser = spec.slice(spec.lastIndexOf('@') + 1);
  const bracketed = /^\[([^\]]+)\]/.exec(noUser);
  if (bracketed) return bracketed[1]!;
  return noUser.split(':').length > 2 ? noUser : noUser.split(':')[0]!;
};

const jumpHosts = (value: string) => (value.toLowerCase() === 'none' ? [] : value.split(',').map(hostOf));

export function sshHosts(argv: readonly string[]): string[] {
  const hosts: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      if (argv[i + 1] !== undefined) hosts.push(hostOf(argv[i + 1]!));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      hosts.push(hostOf(arg));
      break;
    }
    for (let j = 1; j < arg.length; j++) {
      const flag = arg[j]!;
      if (!WITH_ARGUMENT.has(flag)) continue;
      const value = j + 1 < arg.length ? arg.slice(j + 1) : argv[++i] ?? '';
      if (flag === 'J') hosts.push(...jumpHosts(value));
      const option = /^(proxyjump|hostname)\s*=?\s*(.+)$/i.exec(flag === 'o' ? value : '');
      if (option) hosts.push(...(option[1]!.toLowerCase() === 'proxyjump' ? jumpHosts(option[2]!) : [option[2]!]));
      break;
    }
  }
  return hosts;
}
