// Renders zod issues as `path: message` lines an operator can act on.
import type * as z from 'zod/mini';

export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((part) => (typeof part === 'number' ? `[${part}]` : String(part)))
    .join('.')
    .replace(/\.\[/g, '[');
}

export function formatIssues(error: z.core.$ZodError, prefix = ''): string {
  return error.issues
    .map((issue) => {
      const path = [prefix, issuePath(issue.path)].filter(Boolean).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
