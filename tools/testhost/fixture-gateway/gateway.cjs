'use strict';
// Stand-in for the OpenClaw gateway on test hosts: same argv, env and readiness endpoints, with
// behaviour (slow, never ready, crashing, ignoring SIGTERM) chosen by the config file.
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const USAGE = 'usage: gateway.cjs gateway --port <1-65535>';
const FLAGS = {
  readyAfterMs: 'number',
  neverReady: 'boolean',
  exitAtStart: 'boolean',
  crashAfterReadyMs: 'number',
  ignoreSigterm: 'boolean',
};

function fail(message) {
  process.stderr.write(`fixture gateway: ${message}\n`);
  process.exit(2);
}

function parsePort(text) {
  if (!/^[0-9]+$/.test(text || '')) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

function parseArgv(argv) {
  if (argv[0] !== 'gateway') fail(`expected the "gateway" command. ${USAGE}`);
  let port;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i];
    const inline = /^--port=(.*)$/.exec(arg);
    if (arg === '--port' || inline) {
      const value = inline ? inline[1] : argv[++i];
      port = parsePort(value);
      if (port === undefined) fail(`bad --port value ${JSON.stringify(value)}. ${USAGE}`);
    } else {
      fail(`unknown argument ${JSON.stringify(arg)}. ${USAGE}`);
    }
  }
  // Like OpenClaw, the port may come from the environment when the flag is absent.
  if (port === undefined && process.env.OPENCLAW_GATEWAY_PORT !== undefined) {
    port = parsePort(process.env.OPENCLAW_GATEWAY_PORT);
    if (port === undefined) fail(`bad OPENCLAW_GATEWAY_PORT ${JSON.stringify(process.env.OPENCLAW_GATEWAY_PORT)}`);
  }
  if (port === undefined) fail(`no port given. ${USAGE}`);
  return { port };
}

function readBehaviour(configPath) {
  let config;
  try {
    config = JSON.parse(fs.readFileSync(configPath, 'utf8'));
  } catch (e) {
    fail(`cannot read config ${configPath}: ${e.message}`);
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) fail(`config ${configPath} is not a JSON object`);
  const block = config.fixtureGateway === undefined ? {} : config.fixtureGateway;
  if (block === null || typeof block !== 'object' || Array.isArray(block)) fail('"fixtureGateway" must be an object');
  for (const [key, value] of Object.entries(block)) {
    if (!(key in FLAGS)) fail(`unknown fixtureGateway setting ${JSON.stringify(key)}`);
    if (typeof value !== FLAGS[key]) fail(`fixtureGateway.${key} must be a ${FLAGS[key]}`);
    if (typeof value === 'number' && !(Number.isFinite(value) && value >= 0)) fail(`fixtureGateway.${key} must be >= 0`);
  }
  return { readyAfterMs: 0, neverReady: false, exitAtStart: false, ignoreSigterm: false, ...block };
}

const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');

// One line per start, written before anything can fail, so tests can count restarts and see
// that the state directory survives them.
function recordStart(stateDir, entry) {
  try {
    fs.mkdirSync(stateDir, { recursive: true });
    fs.appendFileSync(path.join(stateDir, 'fixture-starts.jsonl'), `${JSON.stringify(entry)}\n`);
  } catch (e) {
    process.stderr.write(`fixture gateway: cannot write state dir ${stateDir}: ${e.message}\n`);
    process.exit(1);
  }
}

/** The gateway's HTTP answers: readiness, health, and its identity to whoever knows the password. */
function createServer(info, password, isReady) {
  const authorised = (req) => {
    if (password === null) return true;
    const given = req.headers['x-fixture-password'];
    if (typeof given !== 'string') return false;
    return crypto.timingSafeEqual(Buffer.from(sha256(given), 'hex'), Buffer.from(sha256(password), 'hex'));
  };
  return http.createServer((req, res) => {
    const url = new URL(req.url || '/', 'http://127.0.0.1');
    const send = (status, body) => {
      const text = `${JSON.stringify(body)}\n`;
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { error: 'method not allowed' });
    switch (url.pathname) {
      case '/readyz':
      case '/ready':
        return send(isReady() ? 200 : 503, { ready: isReady() });
      case '/healthz':
      case '/health':
        return send(200, { ok: true });
      case '/fixture/info':
        return authorised(req) ? send(200, info()) : send(401, { error: 'unauthorized' });
      default:
        return send(404, { error: 'not found' });
    }
  });
}

/** Listens, becomes ready after readyAfterMs (unless neverReady), and crashes when asked to. */
function listen(server, port, behaviour, setReady) {
  server.on('error', (e) => {
    process.stderr.write(`fixture gateway: cannot listen on 127.0.0.1:${port}: ${e.message}\n`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`fixture gateway listening on 127.0.0.1:${port} (pid ${process.pid})\n`);
    if (behaviour.neverReady) return;
    setTimeout(() => {
      setReady();
      process.stdout.write('fixture gateway ready\n');
      if (typeof behaviour.crashAfterReadyMs === 'number') {
        setTimeout(() => {
          process.stderr.write('fixture gateway: crashAfterReadyMs reached, crashing\n');
          process.exit(1);
        }, behaviour.crashAfterReadyMs);
      }
    }, behaviour.readyAfterMs);
  });
}

function onSignals(server, behaviour) {
  process.on('SIGTERM', () => {
    if (behaviour.ignoreSigterm) {
      process.stdout.write('fixture gateway: ignoring SIGTERM\n');
      return;
    }
    process.stdout.write('fixture gateway: SIGTERM, exiting\n');
    server.close();
    process.exit(0);
  });
  process.on('SIGINT', () => process.exit(0));
}

function main() {
  const { port } = parseArgv(process.argv.slice(2));
  const home = process.env.HOME || require('node:os').homedir();
  const stateDir = process.env.OPENCLAW_STATE_DIR || path.join(home, '.openclaw');
  const configPath = process.env.OPENCLAW_CONFIG_PATH || path.join(stateDir, 'openclaw.json');
  const password = process.env.OPENCLAW_GATEWAY_PASSWORD || null;
  const behaviour = readBehaviour(configPath);
  const startedAt = new Date().toISOString();
  recordStart(stateDir, { pid: process.pid, port, startedAt, configPath });
  if (behaviour.exitAtStart) {
    process.stderr.write('fixture gateway: exitAtStart is set, exiting with 3\n');
    process.exit(3);
  }

  let ready = false;
  const info = () => ({
    pid: process.pid,
    port,
    uid: process.getuid(),
    gid: process.getgid(),
    home,
    stateDir,
    configPath,
    passwordSha256: password === null ? null : sha256(password),
    startedAt,
  });
  const server = createServer(info, password, () => ready);
  listen(server, port, behaviour, () => {
    ready = true;
  });
  onSignals(server, behaviour);
}

main();
