// Why a transport could not run the helper, from the SSH client's own diagnostics. Only the cause
// leaves this module: the client's text may name host details and never reaches errors or logs.

export const TRANSPORT_CAUSES = ['host-key', 'authentication', 'timeout', 'refused', 'no-route', 'dns', 'connection-closed', 'unknown'] as const;
export type TransportCause = (typeof TRANSPORT_CAUSES)[number];

/** What to check for each cause, in the words an operator acts on. */
export const CAUSE_ADVICE: Record<TransportCause, string> = {
  'host-key': 'the host key is not the one in ssh.knownHostsFile; collect the host key with ssh-keyscan, compare its fingerprint on the host, and update the file (never disable host-key checking)',
  authentication:
    "the host refused the login; check that the public key of ssh.identityFile is in root's authorized_keys on the host, that sshd permits root key logins (PermitRootLogin prohibit-password), and that the key file is readable only by its owner",
  timeout: 'the host did not answer within ssh.connectTimeoutSeconds; check the address and port, firewalls on the path, and that sshd is running',
  refused: 'the connection was refused; check the port and that sshd listens on it',
  'no-route': 'there is no route to the host; check the address and the network path',
  dns: "the host name did not resolve; check the address and the controller's resolver",
  'connection-closed':
    'the connection closed before the helper finished; check sshd on the host (its journal, MaxStartups, PerSourcePenalties after failed logins from this controller, a restart) and the network path',
  unknown: 'ssh failed for a reason it did not name; run ssh by hand with the same identity and known_hosts file',
};

/** OpenSSH's messages, most specific first: a host-key refusal also ends in "closed". */
const SSH_MESSAGES: [TransportCause, RegExp][] = [
  ['host-key', /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|host key is known for|No matching host key type found/i],
  ['authentication', /Permission denied \(|Too many authentication failures|Load key .*: (bad permissions|invalid format|error in libcrypto)|no mutual signature algorithm/i],
  ['dns', /Could not resolve hostname|Name or service not known|Temporary failure in name resolution|nodename nor servname/i],
  ['timeout', /Connection timed out|Operation timed out|timed out during banner exchange/i],
  ['refused', /Connection refused/i],
  ['no-route', /No route to host|Network is unreachable/i],
  ['connection-closed', /Connection closed by|Connection reset|kex_exchange_identification|Broken pipe|closed by remote host/i],
];

export function sshStderrCause(text: string): TransportCause {
  for (const [cause, pattern] of SSH_MESSAGES) if (pattern.test(text)) return cause;
  return 'unknown';
}

/** A socket error's code (Node's errno names) as a cause. */
export function socketErrorCause(code: string | undefined): TransportCause {
  switch (code) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no-route';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'dns';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection-closed';
    default:
      return 'unknown';
  }
}
