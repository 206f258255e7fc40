// Finds secrets in collected text: raw, hex, base64 at every byte alignment, base64url, and
// inside decoded helper operation arguments on an argv. Pure. Every sighting is a violation.

export interface Secret {
  name: string;
  value: string;
}

export interface Corpus {
  name: string;
  text: string;
  /** Process argument lists, one per line: operation arguments on them are decoded and judged. */
  argv?: boolean;
}

export interface Sighting {
  secret: string;
  corpus: string;
  /** raw, hex, base64, base64url, or `operation-argument` (inside a decoded `<node> - <argument>`). */
  encoding: string;
  /** A short, secret-free description of where. */
  where: string;
}

/** Substrings that base64 of any text containing `value` must contain, one per byte alignment. */
export function base64Cores(value: string, urlSafe = false): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(3)]);
    const encoded = padded.toString('base64');
    // Characters touched by the leading pad, and by whatever follows the value, vary: keep the middle.
    const start = Math.ceil((offset * 4) / 3);
    const end = Math.floor(((offset + bytes.length) * 4) / 3);
    let core = encoded.slice(start, end);
    if (urlSafe) core = core.replace(/\+/g, '-').replace(/\//g, '_');
    if (core.length >= 8) cores.push(core);
  }
  return cores;
}

const OPERATION_ARGUMENT = /(?:^|\s)(\/\S*node) - ([A-Za-z0-9+/]+={0,2})(?=\s|$)/g;

function decodedArguments(line: string): string[] {
  const found: string[] = [];
  for (const match of line.matchAll(OPERATION_ARGUMENT)) found.push(Buffer.from(match[2]!, 'base64').toString('utf8'));
  return found;
}

/** Helper invocations (`<node> - <argument>`) on the lines of an argv corpus. */
export function helperInvocations(text: string): number {
  return text.split('\n').filter((line) => decodedArguments(line).length > 0).length;
}

/** Every sighting of every secret in every corpus. */
export function findSightings(secrets: readonly Secret[], corpora: readonly Corpus[]): Sighting[] {
  const sightings: Sighting[] = [];
  for (const secret of secrets) {
    if (secret.value.length < 8) throw new RangeError(`secret ${secret.name} is too short to search for reliably`);
    const standard = base64Cores(secret.value);
    const forms: [string, string[]][] = [
      ['raw', [secret.value]],
      ['hex', [Buffer.from(secret.value).toString('hex')]],
      ['base64', standard],
      // Only where the URL-safe alphabet spells it differently.
      ['base64url', base64Cores(secret.value, true).filter((core) => !standard.includes(core))],
    ];
    for (const corpus of corpora) {
      const lines = corpus.text.split('\n');
      for (const [index, line] of lines.entries()) {
        const where = `${corpus.name} line ${index + 1}`;
        for (const [encoding, needles] of forms) {
          if (needles.some((needle) => line.includes(needle))) sightings.push({ secret: secret.name, corpus: corpus.name, encoding, where });
        }
        if (corpus.argv && decodedArguments(line).some((decoded) => decoded.includes(secret.value) || decoded.includes(JSON.stringify(secret.value).slice(1, -1)))) {
          sightings.push({ secret: secret.name, corpus: corpus.name, encoding: 'operation-argument', where: `${where} (a helper invocation)` });
        }
      }
    }
  }
  return dedupe(sightings);
}

function dedupe(sightings: Sighting[]): Sighting[] {
  const seen = new Set<string>();
  return sightings.filter((sighting) => {
    const key = `${sighting.secret}|${sighting.corpus}|${sighting.encoding}|${sighting.where}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface SightingGroup {
  secret: string;
  corpus: string;
  encoding: string;
  count: number;
  /** Where the first one was. */
  first: string;
}

/** Sightings counted by secret, corpus and encoding, for the results file. */
export function groupSightings(sightings: readonly Sighting[]): SightingGroup[] {
  const groups = new Map<string, SightingGroup>();
  for (const sighting of sightings) {
    const key = `${sighting.secret}|${sighting.corpus}|${sighting.encoding}`;
    const group = groups.get(key) ?? { secret: sighting.secret, corpus: sighting.corpus, encoding: sighting.encoding, count: 0, first: sighting.where };
    group.count += 1;
    groups.set(key, group);
  }
  return [...groups.values()];
}
