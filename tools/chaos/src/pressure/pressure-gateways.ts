// The compromised gateways of the host-pressure attacks (pressure.ts), each run as the Agent's account
// inside its unit before the fixture gateway's own behaviour (installTenantGateway): one plants names
// for its deletion to remove, one stops every process of its UID, one floods the journal with large
// native-protocol entries, and a well-behaved sibling that logs each request it answers.

/**
 * Plants `count` empty files in state/, in directories of 10,000, in a detached process so that the
 * gateway itself starts at once; writes state/planted-names.json (count and time) when done.
 */
export function namePlanter(count: number): string {
  const plant = `'use strict';
const fs = require('node:fs');
const path = require('node:path');
const started = Date.now();
const state = process.env.OPENCLAW_STATE_DIR;
const base = path.join(state, 'occ-planted-names');
fs.mkdirSync(base);
for (let i = 0; i < ${count}; i++) {
  const dir = path.join(base, String(Math.floor(i / 10000)));
  if (i % 10000 === 0) fs.mkdirSync(dir);
  fs.closeSync(fs.openSync(path.join(dir, String(i)), 'w'));
}
fs.writeFileSync(state + '/planted-names.tmp', JSON.stringify({ ms: Date.now() - started, names: ${count} }));
fs.renameSync(state + '/planted-names.tmp', state + '/planted-names.json');
`;
  return `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(plant)}], { stdio: 'ignore', detached: true }).unref();`;
}

/**
 * Stops every process of its UID, every 2 ms, for ever: kill(-1) reaches every process the account
 * may signal, and the unit shares the host's PID namespace, so the helper's as-account children are
 * among them. The compile cache directory exists, so activation has something to measure as the account.
 */
export const STOPPER = `
require('node:fs').mkdirSync(process.env.NODE_COMPILE_CACHE || process.env.HOME + '/.cache', { recursive: true });
setInterval(() => { try { process.kill(-1, 'SIGSTOP'); } catch {} }, 2);
`;

/**
 * Floods the journal with native-protocol entries of `entryMiB` MiB each, two at a time, for as long as
 * the unit runs: logger --journald hands journald an entry too large for a datagram as a sealed memfd
 * (sd_journal_sendv). The unit's /run/systemd/journal is its log namespace's, so this is the journald
 * its siblings write to. How many entries it started and finished sending goes to state/flood-count.json.
 */
export function journalFlooder(entryMiB: number): string {
  return `
{
  const fs = require('node:fs');
  const path = require('node:path');
  const { spawn } = require('node:child_process');
  const state = process.env.OPENCLAW_STATE_DIR;
  const entry = path.join(state, 'flood-entry');
  const text = require('node:crypto').randomBytes(${Math.round(entryMiB * 786_432)}).toString('base64');
  fs.writeFileSync(entry, 'MESSAGE=' + text + '\\nSYSLOG_IDENTIFIER=occ-flood\\n');
  const count = { started: 0, sent: 0 };
  const report = () => fs.writeFileSync(path.join(state, 'flood-count.json'), JSON.stringify(count));
  const flood = () => {
    const child = spawn('logger', ['--journald=' + entry], { stdio: 'ignore' });
    count.started += 1;
    report();
    child.on('error', () => setTimeout(flood, 1000));
    child.on('exit', (code) => {
      if (code === 0) count.sent += 1;
      report();
      setImmediate(flood);
    });
  };
  flood();
  flood();
}
`;
}

/**
 * A well-behaved sibling that writes one line to its stdout (the journal stream) for each request it
 * answers, as a real gateway logs: if journald stops reading, that write blocks its answers.
 */
export const REQUEST_LOGGER = `
{
  const http = require('node:http');
  const create = http.createServer;
  http.createServer = function (...args) {
    const server = create.apply(this, args);
    server.prependListener('request', (req) => console.log('request ' + req.method + ' ' + req.url));
    return server;
  };
}
`;

/**
 * Run on the host as root with the host's node: GETs http://127.0.0.1:<port>/readyz one after another
 * for `durationMs`, pausing `pauseMs` between two, and prints the latencies (ms) and how many failed (not 200) as JSON.
 */
export const READYZ_SAMPLER = `
const http = require('node:http');
const [port, durationMs, pauseMs] = process.argv.slice(1).map(Number);
let failed = 0;
const once = () => new Promise((resolve) => {
  const started = process.hrtime.bigint();
  const done = (ok) => {
    if (!ok) failed += 1;
    resolve(Number(process.hrtime.bigint() - started) / 1e6);
  };
  const request = http.get({ host: '127.0.0.1', port, path: '/readyz', agent: false, timeout: 30000 }, (response) => {
    response.resume();
    response.on('end', () => done(response.statusCode === 200));
  });
  request.on('timeout', () => request.destroy());
  request.on('error', () => done(false));
});
(async () => {
  const until = Date.now() + durationMs;
  const times = [];
  while (Date.now() < until) {
    times.push(Math.round((await once()) * 100) / 100);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  console.log(JSON.stringify({ times, failed }));
})();
`;
