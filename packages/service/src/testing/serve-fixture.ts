// A service run by serve(), for serve.test.ts: it says when its onClose hook and its `close` run.
import Fastify from 'fastify';
import { serve } from '../serve.js';

await serve({
  shutdownTimeoutMs: 4000,
  build: async () => {
    const app = Fastify();
    app.post('/echo', async (request) => request.body);
    app.addHook('onClose', async () => {
      process.stdout.write('app closed\n');
    });
    return { app, host: '127.0.0.1', port: Number(process.env.PORT), close: async () => void process.stdout.write('database closed\n') };
  },
});
