// The helper's stdin: a one-line prelude that assigns the sealed operation to a global, then the
// helper's own bytes. Kept apart from the header's schema so the chaos step runner, which only
// joins the two, bundles no zod.

/** The global the stdin prelude assigns and the helper takes (and deletes) before anything else runs. */
export const SEALED_KEY = 'occ-ssh.operation';

export interface SealedOperation {
  /** The argv argument: base64 JSON of the header. */
  argument: string;
  /** JavaScript placed before the helper's code on stdin; defines the sealed operation text. */
  prelude: string;
}

const PRELUDE_START = `globalThis[Symbol.for(${JSON.stringify(SEALED_KEY)})]=`;

/** The prelude assigning this value (JSON is valid JavaScript; tests pass non-strings on purpose). */
export function preludeOf(value: unknown): string {
  return `${PRELUDE_START}${JSON.stringify(value)};\n`;
}

/** The helper's stdin: the prelude, then the helper's own bytes. */
export function helperInput(helperBytes: Uint8Array, sealed: SealedOperation): Buffer {
  return Buffer.concat([Buffer.from(sealed.prelude, 'utf8'), helperBytes]);
}

/** Splits a helper input back into the sealed text and the helper's bytes (for tests and recordings). */
export function splitHelperInput(stdin: Uint8Array): { sealed: string; helper: Buffer } | undefined {
  const bytes = Buffer.from(stdin);
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) return undefined;
  const line = bytes.subarray(0, newline).toString('utf8');
  if (!line.startsWith(PRELUDE_START) || !line.endsWith(';')) return undefined;
  const value = parseJson(line.slice(PRELUDE_START.length, -1));
  return typeof value === 'string' ? { sealed: value, helper: bytes.subarray(newline + 1) } : undefined;
}

/** The helper's side: takes the operation the prelude defined, so nothing else in the process can read it later. */
export function takeSealed(): unknown {
  const key = Symbol.for(SEALED_KEY);
  const store = globalThis as unknown as Record<symbol, unknown>;
  const sealed = store[key];
  delete store[key];
  return sealed;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
