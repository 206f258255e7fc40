// A logger destination that keeps nothing on disk: each complete line goes to a callback, so a
// test can hand the driver's own logger (createLogger) a sink and read what it logged.
import { Writable } from 'node:stream';

export function lineSink(onLine: (line: string) => void): Writable {
  let partial = '';
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) onLine(line);
      done();
    },
  });
}
