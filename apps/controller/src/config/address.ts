// What a host `address` may be: a DNS hostname or an IPv4/IPv6 literal, nothing ssh could misread.
import { isIPv4, isIPv6 } from 'node:net';

/** The longest DNS name (RFC 1035). */
const MAX_ADDRESS_LENGTH = 253;

/** One DNS label: letters, digits and inner hyphens, 1-63 characters (RFC 1123). */
const HOSTNAME_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const IPV6_CHARACTERS = /^[0-9A-Fa-f:.]+$/;
const NUMERIC = /^[0-9]+$/;

/**
 * Why `value` is not a usable host address, or undefined when it is.
 * Security: the address becomes one ssh argv element, so a leading `-` (read as an option),
 * whitespace, `@` (a user override) and anything outside hostname or IP syntax are refused.
 * IPv6 is accepted bare, as ssh expects it, without brackets or a `%zone` suffix.
 */
export function hostAddressProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_ADDRESS_LENGTH) return `expected at most ${MAX_ADDRESS_LENGTH} characters`;
  if (/\s/.test(value)) return 'must not contain whitespace';
  if (value.startsWith('-')) return 'must not start with "-" (ssh would read it as an option)';
  if (isIPv4(value)) return undefined;
  if (value.includes(':')) {
    return isIPv6(value) && IPV6_CHARACTERS.test(value) ? undefined : 'expected an IPv6 address without brackets or zone';
  }
  const labels = value.split('.');
  if (!labels.every((label) => HOSTNAME_LABEL.test(label))) {
    return 'expected a hostname of dot-separated labels (letters, digits, inner hyphens; 1-63 characters each) or an IP address';
  }
  if (NUMERIC.test(labels[labels.length - 1] ?? '')) return 'expected a valid IPv4 address or a hostname whose last label is not numeric';
  return undefined;
}
