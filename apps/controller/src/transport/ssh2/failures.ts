// Why an ssh2 connection could not be established or ended, mapped to the transport's causes.
import { socketErrorCause, type TransportCause } from '../failure-cause.js';

/** Why a connection could not be established or ended; never carries host output. */
export type ConnectionFailure = 'identity-file' | 'known-hosts-file' | 'host-key' | 'authentication' | 'timeout' | 'refused' | 'no-route' | 'dns' | 'connection-closed' | 'protocol';

/** The transport cause a connection failure reports; a missing connection closed under the call. */
export function causeOfFailure(failure: ConnectionFailure | undefined): TransportCause {
  switch (failure) {
    case 'identity-file':
    case 'authentication':
      return 'authentication';
    case 'known-hosts-file':
    case 'host-key':
      return 'host-key';
    case 'protocol':
      return 'unknown';
    case undefined:
      return 'connection-closed';
    default:
      return failure;
  }
}

/** An ssh2 client error, by the level ssh2 gives it. */
export function classify(error: Error & { level?: string; code?: string }): ConnectionFailure {
  switch (error.level) {
    case 'client-authentication':
      return 'authentication';
    case 'client-timeout':
      return 'timeout';
    case 'client-socket': {
      const cause = socketErrorCause(error.code);
      return cause === 'unknown' || cause === 'host-key' || cause === 'authentication' ? 'connection-closed' : cause;
    }
    default:
      return 'protocol';
  }
}

/** Why the bastion could not open a channel to the target, from the reason it gave. */
export function forwardFailure(error: Error): ConnectionFailure {
  const message = error.message;
  if (/refused/i.test(message)) return 'refused';
  if (/no route|unreachable/i.test(message)) return 'no-route';
  if (/timed out/i.test(message)) return 'timeout';
  if (/resolve|name or service/i.test(message)) return 'dns';
  return 'connection-closed';
}
