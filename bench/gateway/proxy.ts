// The bare pass-through proxy of bench/gateway/overhead.ts (target b), in a process of its own:
// node:http in, node:http out over a keep-alive agent, bodies piped both ways, nothing parsed. It
// is the floor any gateway in Node pays for one extra hop. Usage: proxy.ts <upstream origin>.
import { Agent, createServer, type IncomingHttpHeaders, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

const target = new URL(process.argv[2] ?? 'http://127.0.0.1:1');
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'upgrade']);
const endToEnd = (headers: IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).filter(([name]) => !hopByHop.has(name)));

const server = createServer((request, response) => {
  const outgoing = forward(
    { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: endToEnd(request.headers), agent },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(response);
    },
  );
  outgoing.on('error', () => {
    if (!response.headersSent) response.writeHead(502);
    response.end();
  });
  request.pipe(outgoing);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => process.exit(0));
