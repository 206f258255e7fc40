// The gateway entry of the lanes that cut setup-workspace. The fixture gateway baked into the test
// image has no `setup` command, so these lanes run, as `runtime.openclawPath`, a small entry that does
// what OpenClaw's `setup --baseline` does for the files the helper checks (the workspace directory and
// the stock documents, each only where absent) and is the fixture gateway for everything else.
// Beside it, as beside a real OpenClaw entry: a package.json with a version and the templates the
// helper reads to know the stock documents.
import { WORKSPACE_FILE_NAMES } from '@occ-ssh/protocol';
import type { HostLink } from './ssh.js';

/** Outside every path the gateway unit's sandbox hides, root-owned like an installed OpenClaw. */
const DIR = '/opt/occ-chaos-openclaw';
const SETUP_GATEWAY_VERSION = '2026.0.0-chaos';

/** OpenClaw's templates carry front matter, which native setup strips: so do these. */
const template = (name: string) => `---\ntitle: "${name} template"\nsummary: "Chaos stand-in for OpenClaw's stock ${name}"\n---\n\n# ${name}\n\nStock text of the chaos setup gateway.\n`;

function entrySource(fixtureGatewayPath: string): string {
  return `'use strict';
// Chaos stand-in for OpenClaw: \`setup --baseline\` makes the workspace and its stock documents where absent; anything else is the fixture gateway.
const fs = require('node:fs');
const path = require('node:path');
const argv = process.argv.slice(2);
if (argv[0] === 'setup') {
  if (argv.length !== 2 || argv[1] !== '--baseline') {
    process.stderr.write('usage: setup --baseline\\n');
    process.exit(2);
  }
  const dir = path.join(process.env.OPENCLAW_STATE_DIR, 'workspace');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const name of ${JSON.stringify(WORKSPACE_FILE_NAMES)}) {
    const template = fs.readFileSync(path.join(__dirname, 'docs', 'reference', 'templates', name), 'utf8');
    const text = template.replace(/^---\\r?\\n[\\s\\S]*?\\r?\\n---\\r?\\n/, '').replace(/^\\s+/, '');
    try {
      fs.writeFileSync(path.join(dir, name), text, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
} else {
  require(${JSON.stringify(fixtureGatewayPath)});
}
`;
}

/** Installs the entry, its package.json and templates (root's, 0755/0644); returns the entry's path. */
export async function installSetupGateway(link: HostLink): Promise<string> {
  const entry = `${DIR}/openclaw.cjs`;
  const templates = `${DIR}/docs/reference/templates`;
  const put = (path: string, mode: string, content: string) => link.run(['sh', '-c', 'cat > "$1.tmp" && chmod "$2" "$1.tmp" && mv "$1.tmp" "$1"', 'put', path, mode], { input: content });
  await link.run(['mkdir', '-p', '-m', '0755', DIR, `${DIR}/docs`, `${DIR}/docs/reference`, templates]);
  for (const name of WORKSPACE_FILE_NAMES) await put(`${templates}/${name}`, '0644', template(name));
  await put(`${DIR}/package.json`, '0644', `${JSON.stringify({ name: 'openclaw', version: SETUP_GATEWAY_VERSION })}\n`);
  await put(entry, '0755', entrySource(link.host.fixtureGatewayPath));
  return entry;
}
