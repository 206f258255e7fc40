// Finds the Debian mirror this machine already uses, so no mirror name is ever written in the project.
import { readFile } from 'node:fs/promises';

const DEB822_FILE = '/etc/apt/sources.list.d/debian.sources';
const ONE_LINE_FILE = '/etc/apt/sources.list';

/** First `URIs:` of a deb822 stanza that serves the main archive (not the security one). */
export function mirrorFromDeb822(text: string): string | undefined {
  const stanzas = text.split(/\n\s*\n/);
  let fallback: string | undefined;
  for (const stanza of stanzas) {
    const fields = new Map<string, string>();
    for (const line of stanza.split('\n')) {
      const m = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
      if (m?.[1] && m[2] !== undefined) fields.set(m[1].toLowerCase(), m[2].trim());
    }
    const types = (fields.get('types') ?? '').split(/\s+/);
    const uri = (fields.get('uris') ?? '').split(/\s+/).find(Boolean);
    if (!uri || !types.includes('deb') || fields.get('enabled') === 'no') continue;
    const suites = (fields.get('suites') ?? '').split(/\s+/);
    if (!suites.some((s) => s.endsWith('-security'))) return uri;
    fallback ??= uri;
  }
  return fallback;
}

/** First `deb` line of a one-line sources.list; options in brackets are skipped. */
export function mirrorFromSourcesList(text: string): string | undefined {
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const m = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line);
    if (m?.[1] && m[2] && !m[2].endsWith('-security')) return m[1];
  }
  return undefined;
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

export async function debianMirror(): Promise<string> {
  const deb822 = await readIfPresent(DEB822_FILE);
  const fromDeb822 = deb822 === undefined ? undefined : mirrorFromDeb822(deb822);
  if (fromDeb822) return fromDeb822;
  const oneLine = await readIfPresent(ONE_LINE_FILE);
  const fromList = oneLine === undefined ? undefined : mirrorFromSourcesList(oneLine);
  if (fromList) return fromList;
  throw new Error(`no Debian mirror found in ${DEB822_FILE} or ${ONE_LINE_FILE}`);
}
