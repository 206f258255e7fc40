// The one logger factory: pino, injectable, with secrets redacted by configuration rather than care.
// A library stays quiet: the driver logs only through the logger it is given, and this default
// (used when none is) writes warnings and errors only, to stderr, never to the embedding process's stdout.
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
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
 * The active span's IDs, as OpenTelemetry's log data model and its pino instrumentation name them:
 * a line written inside a span joins its trace. Nothing outside one, or before an SDK is registered.
 */
function traceFields(): Record<string, string> {
  const span = trace.getSpan(context.active())?.spanContext();
  if (!span || !isSpanContextValid(span)) return {};
  return { trace_id: span.traceId, span_id: span.spanId, trace_flags: `0${span.traceFlags.toString(16)}`.slice(-2) };
}

/**
 * The driver's logger (`compute-ssh`, level OCC_SSH_LOG_LEVEL or warn) on stderr or `destination`.
 * Options may change the name and level and add a mixin; the redaction and the trace IDs always hold.
 */
export function createLogger(options: pino.LoggerOptions = {}, destination: DestinationStream = pino.destination({ fd: 2, sync: true })): Logger {
  const own = options.mixin;
  const settings: pino.LoggerOptions = {
    name: 'compute-ssh',
    level: process.env.OCC_SSH_LOG_LEVEL ?? 'warn',
    ...options,
    mixin: (base, level, logger) => ({ ...own?.(base, level, logger), ...traceFields() }),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return pino(settings, destination);
}

export type { Logger };
