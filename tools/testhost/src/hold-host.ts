// Test helper process: starts one host, reports it as JSON on stdout, then waits to be signalled or exits.
import { startTestHost } from './index.js';

const mode = process.argv[2] ?? 'wait';
// If the test that started us dies, stdin closes: leave then, so the host goes with us.
process.stdin.on('end', () => process.exit(0)).resume();
const host = await startTestHost();
process.stdout.write(`${JSON.stringify({ name: host.name, address: host.address, pid: process.pid })}\n`);
// 'exit' leaves without down(): the process exit handler must still take the host apart.
if (mode === 'exit') process.exit(0);
setInterval(() => undefined, 1 << 30);
