// Test support: unreachable SSH targets on addresses this machine owns, so no test dials out.
import { createServer, type Server, type Socket } from 'node:net';

const listen = (server: Server) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });

/** A loopback port that was just bound and released: a connection to it is refused. */
export async function closedLoopbackPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A loopback listener that accepts and never speaks: the client can only time out. */
export function silentLoopbackListener(): { port: () => Promise<number>; close: () => Promise<void> } {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  let bound: Promise<number> | undefined;
  return {
    port: () => (bound ??= listen(server)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!bound) return resolve();
        server.close(() => resolve());
      }),
  };
}
