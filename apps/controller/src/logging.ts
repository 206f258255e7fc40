// The driver's logger: pino, injectable, with secrets redacted by configuration rather than care.
import pino, { type Logger } from 'pino';

/** Field paths that may carry passwords, placeholders or document contents. */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'document',
  '*.document',
  'configuration',
  '*.configuration',
  'environment',
  '*.environment',
  'launchEnvironment',
  '*.launchEnvironment',
  'stdout',
  'stderr',
];

export function createLogger(options: pino.LoggerOptions = {}): Logger {
  return pino({ name: 'compute-ssh', level: process.env.OCC_SSH_LOG_LEVEL ?? 'info', ...options, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

export type { Logger };
