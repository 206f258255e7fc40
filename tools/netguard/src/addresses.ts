// Which addresses a test, chaos case or benchmark may dial: loopback and the test-host range only.
import { isIPv4, isIPv6 } from 'node:net';

export type AddressClass = 'loopback' | 'unspecified' | 'test-range' | 'documentation' | 'link-local' | 'other';

const octets = (a: string) => a.split('.').map(Number);

/** Documentation ranges (RFC 5737, RFC 3849): fine as configuration text, never to be dialled. */
const DOCUMENTATION_V4 = ['192.0.2.', '198.51.100.', '203.0.113.'];

/**
 * Link-local (169.254.0.0/16, fe80::/10): the ranges the gateway unit denies, so they appear as deny
 * rules, and as the metadata stand-in a test puts on a test host's own loopback, dialled only inside
 * that host. Never dialled from this machine: the run-time guard refuses them like any other.
 */
const isLinkLocalV6 = (a: string) => /^fe[89ab][0-9a-f]:/.test(a);

export function addressClass(address: string): AddressClass {
  const a = address.toLowerCase().replace(/^\[|\]$/g, '');
  if (isIPv4(a)) {
    const [first, second] = octets(a);
    if (first === 127) return 'loopback';
    if (a === '0.0.0.0') return 'unspecified';
    if (first === 10 && second === 213) return 'test-range';
    if (first === 169 && second === 254) return 'link-local';
    return DOCUMENTATION_V4.some((p) => a.startsWith(p)) ? 'documentation' : 'other';
  }
  if (isIPv6(a)) {
    if (a === '::1') return 'loopback';
    if (/^[0:]+$/.test(a)) return 'unspecified';
    if (a.startsWith('::ffff:') && isIPv4(a.slice(7))) return addressClass(a.slice(7));
    if (isLinkLocalV6(a)) return 'link-local';
    return /^2001:db8:/.test(a) ? 'documentation' : 'other';
  }
  return a === 'localhost' ? 'loopback' : 'other';
}

/** Why dialling `host` is forbidden, or undefined when it is loopback or the test-host range. */
export function dialProblem(host: string): string | undefined {
  const kind = addressClass(host);
  if (kind === 'loopback' || kind === 'test-range') return undefined;
  return `network guard: refusing to dial ${host} (${kind}); tests, chaos and benchmarks may dial only loopback and test hosts in 10.213.0.0/16`;
}

const IPV4_LITERAL = /(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])/g;
const IPV6_CANDIDATE = /(?<![\w:.])[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}(?::(?:\d{1,3}\.){3}\d{1,3})?(?![\w:.])/g;

/** Address literals in a text, with their 1-based line numbers. */
export function addressLiterals(text: string): { line: number; address: string }[] {
  const found: { line: number; address: string }[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(IPV4_LITERAL)) if (isIPv4(m[0])) found.push({ line: i + 1, address: m[0] });
    for (const m of line.matchAll(IPV6_CANDIDATE))
      if (m[0].includes('::') || m[0].split(':').length === 8) {
        if (isIPv6(m[0])) found.push({ line: i + 1, address: m[0] });
      }
  });
  return found;
}
