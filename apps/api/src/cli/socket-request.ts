import { request } from 'node:http';

export type SocketAnswer = { reached: false } | { reached: true; status: number; body: unknown };

/** Codes meaning nobody listens at the path: no file (never started, shut down) or a crashed api's leftover. */
const nobodyListens = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK']);

/** POSTs JSON over a Unix socket; `reached: false` when no process listens there. */
export function postOverSocket(socketPath: string, path: string, body: unknown, timeoutMs = 15_000): Promise<SocketAnswer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }, timeout: timeoutMs },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          try {
            resolve({ reached: true, status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
          } catch {
            reject(new Error(`The api answered ${res.statusCode} on ${socketPath} with something that is not JSON.`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`The api did not answer on ${socketPath} within ${timeoutMs / 1000} s.`)));
    req.on('error', (error: NodeJS.ErrnoException) => (error.code && nobodyListens.has(error.code) ? resolve({ reached: false }) : reject(error)));
    req.end(payload);
  });
}
