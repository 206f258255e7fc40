// The types OpenClaw itself gives `gateway.auth`, field by field, so a document it would refuse at
// gateway start is refused at admission instead, before OCC commits the revision.
// Source: openclaw 2026.9.6 (the version the test hosts carry), src/config/zod-schema.gateway.ts;
// gateway-auth.e2e.test.ts runs `openclaw config validate` on the documents admitted here.
import { z } from 'zod';

/** OpenClaw's closed operator scope set (src/gateway/operator-scopes.ts). */
const OPERATOR_SCOPES = [
  'operator.admin',
  'operator.read',
  'operator.write',
  'operator.sessions.read',
  'operator.sessions.write',
  'operator.approvals',
  'operator.questions',
  'operator.pairing',
  'operator.talk',
  'operator.talk.secrets',
] as const;

/** OpenClaw trims before its length check, so a blank string is as empty as "". */
const trimmedNonEmpty = z.string().refine((value) => value.trim().length > 0, { error: 'expected a non-empty string' });

/** Strict, like OpenClaw's: an unknown key here makes the real gateway refuse its configuration. */
const rateLimit = z.strictObject({
  maxAttempts: z.number().optional(),
  windowMs: z.number().optional(),
  lockoutMs: z.number().optional(),
  exemptLoopback: z.boolean().optional(),
});

const trustedProxy = z.strictObject({
  userHeader: z.string().min(1, { error: 'expected a non-empty string' }),
  requiredHeaders: z.array(z.string()).optional(),
  allowUsers: z.array(z.string()).optional(),
  allowLoopback: z.boolean().optional(),
  cloudflareAccessOidc: z
    .strictObject({
      issuer: z.string().regex(/^https:\/\/[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?\.cloudflareaccess\.com$/u, {
        error: 'expected a Cloudflare Access HTTPS issuer origin without a trailing slash',
      }),
      providerId: trimmedNonEmpty,
      githubAccountIdClaim: trimmedNonEmpty,
    })
    .optional(),
  deviceAutoApprove: z
    .strictObject({
      enabled: z.boolean().optional(),
      scopes: z.array(z.string().min(1, { error: 'expected a non-empty string' })).optional(),
    })
    .optional(),
});

const identityScopes = z.record(z.string().min(1, { error: 'expected a non-empty identity' }), z.array(z.enum(OPERATOR_SCOPES)));

/** Per-field types; `mode`, `password` and `allowTailscale` are decided by document.ts. */
export const GATEWAY_AUTH_FIELDS = { rateLimit, trustedProxy, identityScopes } as const;

export interface FieldProblem {
  /** Dotted path below the field, '' for the field itself. */
  path: string;
  reason: string;
}

/** The first problem OpenClaw's schema would report for this field; never echoes a value. */
export function gatewayAuthFieldProblem(field: keyof typeof GATEWAY_AUTH_FIELDS, value: unknown): FieldProblem | undefined {
  const result = GATEWAY_AUTH_FIELDS[field].safeParse(value);
  const issue = result.success ? undefined : result.error.issues[0];
  if (!issue) return undefined;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    return { path: [...path, issue.keys[0] ?? ''].join('.'), reason: 'is not a field OpenClaw accepts here (OpenClaw refuses unknown keys in this object)' };
  }
  if (issue.code === 'invalid_key') return { path: path.join('.'), reason: 'expected a non-empty identity' };
  if (issue.code === 'invalid_value') return { path: path.join('.'), reason: `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` };
  if (issue.code === 'invalid_type') return { path: path.join('.'), reason: `expected ${issue.expected === 'record' ? 'object' : issue.expected}` };
  return { path: path.join('.'), reason: issue.message };
}
