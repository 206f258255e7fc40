// The workspace documents OCC hands over at an Agent's first deployment, and the rules their contents follow.
import * as z from 'zod/mini';

/** The only names OCC stages (its contracts' INITIAL_WORKSPACE_FILE_NAMES), in OCC's order. */
export const WORKSPACE_FILE_NAMES = ['AGENTS.md', 'SOUL.md', 'IDENTITY.md', 'USER.md'] as const;
export type WorkspaceFileName = (typeof WORKSPACE_FILE_NAMES)[number];

export const MAX_WORKSPACE_FILE_BYTES = 16 * 1024;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a document's content is refused (never quoting it), or undefined when OCC's normalization would accept it. */
export function workspaceContentProblem(content: unknown): string | undefined {
  if (typeof content !== 'string') return 'expected a string';
  if (LONE_SURROGATE.test(content)) return 'is not valid Unicode (it holds a lone surrogate)';
  if (content.includes('\0')) return 'must not contain NUL';
  if (Buffer.byteLength(content, 'utf8') > MAX_WORKSPACE_FILE_BYTES) return `exceeds ${MAX_WORKSPACE_FILE_BYTES} bytes of UTF-8`;
  return undefined;
}

export function isWorkspaceFileName(name: string): name is WorkspaceFileName {
  return (WORKSPACE_FILE_NAMES as readonly string[]).includes(name);
}

export const workspaceFileName = z.enum(WORKSPACE_FILE_NAMES);

export const workspaceContent = z.string().check(
  z.superRefine((value, ctx) => {
    const problem = workspaceContentProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `workspace document ${problem}`, input: '<document>' });
  }),
);
