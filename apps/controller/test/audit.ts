// Judges `npm audit --json` output. An advisory at or above `moderate` fails; a registry that does
// not serve the advisory endpoint (it answers an HTTP error, or cannot be reached) is "unchecked",
// never clean, so a mirror that answers only GET cannot pass an audit it never ran.

type AuditVerdict = { kind: 'clean'; dependencies: number; below: string[] } | { kind: 'vulnerable'; findings: string[] } | { kind: 'unchecked'; reason: string } | { kind: 'broken'; reason: string };

const FAILING = new Set(['moderate', 'high', 'critical']);
/** npm's network error codes: the advisory database was not reached. */
const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

interface Vulnerability {
  severity?: unknown;
  range?: unknown;
  via?: unknown;
}

const advisoryTitles = (via: unknown) =>
  (Array.isArray(via) ? via : []).map((entry: unknown) =>
    typeof entry === 'string' ? `via ${entry}` : String((entry as { title?: unknown; url?: unknown }).url ?? (entry as { title?: unknown }).title ?? 'advisory'),
  );

export function judgeAudit(stdout: string): AuditVerdict {
  let report: Record<string, unknown>;
  try {
    report = JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    return { kind: 'broken', reason: `npm audit printed no JSON report (${stdout.slice(0, 120).trim() || 'nothing'})` };
  }
  if (typeof report.statusCode === 'number')
    return { kind: 'unchecked', reason: `the registry answered ${report.statusCode} to ${String(report.method ?? '')} ${String(report.uri ?? 'the advisory endpoint')}` };
  const error = report.error as { code?: unknown; summary?: unknown } | undefined;
  if (error && typeof error === 'object') {
    const code = String(error.code ?? '');
    if (UNREACHABLE.has(code)) return { kind: 'unchecked', reason: `the advisory endpoint could not be reached (${code})` };
    return { kind: 'broken', reason: `npm audit failed: ${code || 'no code'} ${typeof error.summary === 'string' ? error.summary : ''}`.trim() };
  }
  if (report.auditReportVersion !== 2 || typeof report.vulnerabilities !== 'object' || report.vulnerabilities === null) {
    return { kind: 'broken', reason: `npm audit printed a report of an unknown form (auditReportVersion ${String(report.auditReportVersion)})` };
  }
  const findings: string[] = [];
  const below: string[] = [];
  for (const [name, vulnerability] of Object.entries(report.vulnerabilities as Record<string, Vulnerability>)) {
    const line = `${name} ${String(vulnerability.range ?? '')} (${String(vulnerability.severity)}): ${advisoryTitles(vulnerability.via).join(', ')}`;
    (FAILING.has(String(vulnerability.severity)) ? findings : below).push(line);
  }
  if (findings.length > 0) return { kind: 'vulnerable', findings };
  const dependencies = (report.metadata as { dependencies?: { total?: unknown } } | undefined)?.dependencies?.total;
  return { kind: 'clean', dependencies: typeof dependencies === 'number' ? dependencies : 0, below };
}
