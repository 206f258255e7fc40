// The one logger factory: pino, injectable, with secrets redacted by configuration rather than care.
import pino, { type DestinationStream, type Logger } from 'pino';

/** Field paths that may carry passwords, placeholders or document contents. */
const REDACTED_PATHS = [
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

/**
 * The driver's logger (`compute-ssh`, level OCC_SSH_LOG_LEVEL or info) on stdout or `destination`.
 * Options may change the name and level; the redaction always holds.
 */
export function createLogger(options: pino.LoggerOptions = {}, destination?: DestinationStream): Logger {
  const settings = { name: 'compute-ssh', level: process.env.OCC_SSH_LOG_LEVEL ?? 'info', ...options, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(settings, destination) : pino(settings);
}

export type { Logger };
