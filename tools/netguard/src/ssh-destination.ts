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

/** `Host alias` → `HostName` of an ssh_config text (single-name Host blocks, as the driver writes them). */
function configAliases(text: string): Map<string, string> {
  const aliases = new Map<string, string>();
  let current: string | undefined;
  for (const line of text.split('\n')) {
    const [key, ...rest] = line.trim().split(/\s+/);
    if (key?.toLowerCase() === 'host') current = rest.length === 1 ? rest[0] : undefined;
    else if (key?.toLowerCase() === 'hostname' && current && rest[0]) aliases.set(current, rest[0]);
  }
  return aliases;
}

/** The hosts an argv reaches; `readConfig` returns the text of a `-F` file (aliases resolve through it). */
export function sshHosts(argv: readonly string[], readConfig: (path: string) => string = () => ''): string[] {
  const config = argv.findIndex((arg) => arg === '-F');
  const file = config >= 0 ? argv[config + 1] : undefined;
  const aliases = file && file !== 'none' ? configAliases(readConfig(file)) : new Map<string, string>();
  return rawHosts(argv).map((host) => aliases.get(host) ?? host);
}

function rawHosts(argv: readonly string[]): string[] {
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
      const value = j + 1 < arg.length ? arg.slice(j + 1) : (argv[++i] ?? '');
      if (flag === 'J') hosts.push(...jumpHosts(value));
      const option = /^(proxyjump|hostname)\s*=?\s*(.+)$/i.exec(flag === 'o' ? value : '');
      if (option) hosts.push(...(option[1]!.toLowerCase() === 'proxyjump' ? jumpHosts(option[2]!) : [option[2]!]));
      break;
    }
  }
  return hosts;
}
