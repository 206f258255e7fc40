// The attacks of the hostile-tenants section, as CommonJS source for installTenantGateway: each runs
// at the start of a compromised gateway, as the Agent's account inside its unit, and writes what it
// achieved to its state directory (which the campaign reads as root). Values are spliced in with
// JSON.stringify only; the shell scripts take theirs from the environment or argv, never from text.

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const STATE = 'const state = process.env.OPENCLAW_STATE_DIR;';

/**
 * Waits for `lock-go` (root writes it once activation is done), tries the other lock mode without
 * blocking, then holds the one named in `lock-go` for 900 s, saying so in `lock-held`.
 */
export function lockHolder(lockPath: string): string {
  const script = [
    'while [ ! -e "$S/lock-go" ]; do sleep 0.1; done',
    'mode=$(cat "$S/lock-go"); other=shared; [ "$mode" = shared ] && other=exclusive',
    'flock --nonblock --conflict-exit-code 75 --$other "$L" true 2>"$S/lock-probe-error"; echo "$other $?" > "$S/lock-probe"',
    'flock --$mode "$L" sh -c \'echo "$1" > "$S/lock-held"; exec sleep 900\' held "$mode" 2>"$S/lock-error"',
    'echo "exit $?" >> "$S/lock-error"',
  ].join('\n');
  return `{
  ${STATE}
  require('node:fs').writeFileSync(state + '/lock-armed', String(process.pid));
  const env = { PATH: ${JSON.stringify(PATH)}, S: state, L: ${JSON.stringify(lockPath)} };
  require('node:child_process').spawn('/bin/sh', ['-c', ${JSON.stringify(script)}], { env, stdio: 'ignore', detached: true }).unref();
}`;
}

/** Serves its own port: every request gets a status line, then one header byte every 0.4 s, forever. */
export const TRICKLER = `{
  const argv = process.argv.slice(2);
  let port = Number(process.env.OPENCLAW_GATEWAY_PORT);
  for (let i = 0; i < argv.length; i++) {
    const match = /^--port(?:=(.*))?$/.exec(argv[i]);
    if (match) port = Number(match[1] === undefined ? argv[++i] : match[1]);
  }
  require('node:net')
    .createServer((socket) => {
      socket.on('error', () => socket.destroy());
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\\r\\nX-Trickle: ');
        const timer = setInterval(() => socket.write('x'), 400);
        socket.on('close', () => clearInterval(timer));
      });
    })
    .listen(port, '127.0.0.1');
  return;
}`;

/** `count` audit lines in the helper's format under its tag, with request IDs `forged-<n>`. */
export function auditForger(count: number): string {
  return `{
  ${STATE}
  const { spawnSync } = require('node:child_process');
  let written = 0;
  for (let n = 1; n <= ${count}; n++) {
    const line = 'operation=activate-revision outcome=ok request=forged-' + n + ' namespace=ns-forged agent=agent-forged revision=rev-forged ms=12 changes=3 helper=' + '0'.repeat(64);
    // A stream of its own to journald's stdout socket: the unit denies the syslog and native sockets.
    const result = spawnSync('systemd-cat', ['-t', 'occ-ssh-helper', '-p', 'notice', 'echo', line], { stdio: 'ignore', env: { PATH: ${JSON.stringify(PATH)} } });
    if (result.status === 0) written++;
  }
  require('node:fs').writeFileSync(state + '/forged.json', JSON.stringify({ written }));
}`;
}

/** The name of the deep chain's top directory: the campaign sweeps it away wherever it is. */
export const DEEP_NAME = 'occ-tenant-deep';

/**
 * In a detached child (the gateway starts at once): in home/ and in state/, a chain `depth` levels
 * deep (built by chdir, past PATH_MAX), files/2 empty files, a 000-mode directory and links to
 * /etc, /root and `sentinel`; then `planted.json` in state/.
 */
export function treePlanter(depth: number, files: number, sentinel: string): string {
  const plant = `'use strict';
const fs = require('node:fs');
const path = require('node:path');
const started = Date.now();
const home = process.env.HOME, state = process.env.OPENCLAW_STATE_DIR;
for (const base of [home, state]) {
  process.chdir(base);
  fs.mkdirSync(${JSON.stringify(DEEP_NAME)});
  process.chdir(${JSON.stringify(DEEP_NAME)});
  for (let i = 0; i < ${depth}; i++) { fs.mkdirSync('d'); process.chdir('d'); }
  fs.writeFileSync('bottom', 'x');
  fs.symlinkSync('/root', 'root-link');
  const many = path.join(base, 'occ-tenant-many');
  fs.mkdirSync(many);
  for (let i = 0; i < ${Math.ceil(files / 2)}; i++) {
    const dir = path.join(many, String(Math.floor(i / 1000)));
    if (i % 1000 === 0) fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, String(i)), '');
  }
  const locked = path.join(base, 'occ-tenant-locked');
  fs.mkdirSync(locked);
  fs.writeFileSync(path.join(locked, 'inside'), 'x');
  fs.chmodSync(locked, 0);
  fs.symlinkSync('/etc', path.join(base, 'etc-link'));
  fs.symlinkSync(${JSON.stringify(sentinel)}, path.join(base, 'sentinel-link'));
}
process.chdir('/');
fs.writeFileSync(state + '/planted.tmp', JSON.stringify({ ms: Date.now() - started, depth: ${depth}, files: ${2 * Math.ceil(files / 2)} }));
fs.renameSync(state + '/planted.tmp', state + '/planted.json');
`;
  return `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(plant)}], { stdio: 'ignore', detached: true }).unref();`;
}

/** What a reader dumps, one `== section` after another: argv $1 is the victim's unit, $2 the shared root. */
export const READER_SCRIPT = [
  // From /: find cannot work from a directory the account may not enter (runuser keeps root's).
  'cd / || exit 1; unit="$1"; root="$2"; shape="opaque-[A-Za-z0-9._:-]+"',
  'section() { printf \'\\n== %s\\n\' "$1"; }',
  "section 'unit directories'; find /etc/systemd/system /run/systemd/system /run/systemd/transient -type f -readable -exec cat {} + 2>/dev/null",
  'section \'shared root\'; grep -r -a -s -h -o -D skip -E "$shape" "$root"',
  'section \'etc, run, tmp and var\'; grep -r -a -s -h -o -D skip -E "$shape" /etc /run /tmp /var/tmp /var/lib /var/log',
  "section 'proc'; for p in /proc/[0-9]*; do tr '\\0' '\\n' < \"$p/environ\"; tr '\\0' ' ' < \"$p/cmdline\"; echo; done 2>/dev/null",
  'section \'systemctl show\'; systemctl show --no-pager "$unit" 2>&1',
  'section \'systemctl cat\'; systemctl cat --no-pager "$unit" 2>&1',
  "section 'journal'; journalctl --no-pager -o cat -n 3000 2>&1",
  'true',
].join('\n');

/** The probe both sides run on a list of paths: lstat identity and listing, or the error codes. */
export const PROBE_FUNCTION = `(p) => {
  const fs = require('node:fs');
  const out = { path: p };
  try { const s = fs.lstatSync(p, { bigint: true }); out.stat = s.ino + ' ' + (Number(s.mode) & 0o7777).toString(8) + ' ' + s.uid; } catch (e) { out.statError = e.code; }
  try { out.list = fs.readdirSync(p).sort(); } catch (e) { out.listError = e.code; }
  return out;
}`;

/** A compromised gateway that probes `paths` at once, then dumps what it can read in a detached shell. */
export function placeholderReader(paths: readonly string[], victimUnit: string, root: string): string {
  return `{
  ${STATE}
  const fs = require('node:fs');
  fs.writeFileSync(state + '/visibility.json', JSON.stringify(${JSON.stringify(paths)}.map(${PROBE_FUNCTION})));
  const script = ${JSON.stringify(READER_SCRIPT)} + '\\nmv "$S/reads.tmp" "$S/reads.txt"';
  const out = fs.openSync(state + '/reads.tmp', 'w');
  const env = { PATH: ${JSON.stringify(PATH)}, S: state };
  require('node:child_process').spawn('/bin/sh', ['-c', script, 'reader', ${JSON.stringify(victimUnit)}, ${JSON.stringify(root)}], { env, stdio: ['ignore', out, out], detached: true }).unref();
  fs.closeSync(out);
}`;
}
