// Finds secrets in collected text: raw, hex, base64 at every byte alignment, base64url, and
// inside decoded helper operation arguments. Pure. The one sighting the transport design allows
// is a document sentinel or a placeholder inside the base64 operation argument on an argv.

export interface Secret {
  name: string;
  value: string;
  /** May appear base64-encoded inside a helper operation argument on a process argv (the spec's transport). */
  allowedInOperationArgument: boolean;
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
  /** raw, hex, base64, base64url, or `operation-argument` (base64 inside `<node> - <argument>`). */
  encoding: string;
  /** The documented transport design (counted apart, not a violation). */
  design: boolean;
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
        const inArgument = corpus.argv ? decodedArguments(line).some((decoded) => decoded.includes(secret.value) || decoded.includes(JSON.stringify(secret.value).slice(1, -1))) : false;
        const operationLine = corpus.argv === true && OPERATION_ARGUMENT.test(line);
        OPERATION_ARGUMENT.lastIndex = 0;
        for (const [encoding, needles] of forms) {
          if (!needles.some((needle) => line.includes(needle))) continue;
          // base64 forms inside the operation argument are the design case when the decoded argument carries the secret.
          const design = secret.allowedInOperationArgument && operationLine && inArgument && (encoding === 'base64' || encoding === 'base64url') && !line.includes(secret.value);
          sightings.push({ secret: secret.name, corpus: corpus.name, encoding: design ? 'operation-argument' : encoding, design, where: `${corpus.name} line ${index + 1}${operationLine ? ' (a helper invocation)' : ''}` });
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
  design: boolean;
  count: number;
  /** Where the first one was. */
  first: string;
}

/** Sightings counted by secret, corpus, encoding and design, for the results file. */
export function groupSightings(sightings: readonly Sighting[]): SightingGroup[] {
  const groups = new Map<string, SightingGroup>();
  for (const sighting of sightings) {
    const key = `${sighting.secret}|${sighting.corpus}|${sighting.encoding}|${sighting.design}`;
    const group = groups.get(key) ?? { secret: sighting.secret, corpus: sighting.corpus, encoding: sighting.encoding, design: sighting.design, count: 0, first: sighting.where };
    group.count += 1;
    groups.set(key, group);
  }
  return [...groups.values()];
}
