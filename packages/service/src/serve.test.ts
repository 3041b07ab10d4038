import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from './free-port.js';

const fixture = fileURLToPath(new URL('./testing/serve-fixture.ts', import.meta.url));

async function start() {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, port, output: () => output };
}

describe('serve', () => {
  it('shuts down on SIGTERM: the app closes, then the database, exit 0', async () => {
    const { child, output } = await start();
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(output()).toBe('app closed\ndatabase closed\n');
  });

  it('still closes the app and the database when a client holds a request open and never finishes it', async () => {
    const { child, port, output } = await start();
    const holder = connect(port, '127.0.0.1');
    await once(holder, 'connect');
    holder.on('error', () => undefined);
    // A body announced as 100 bytes, of which 2 ever come.
    holder.write('POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    holder.destroy();
    expect(code).toBe(0);
    expect(output()).toBe('app closed\ndatabase closed\n');
  });
});
