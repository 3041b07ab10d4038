// `npm run bench:csv --workspace bench` (DATABASE_URL required): the streamed CSV export of chat
// completions. A fresh database on that server (dropped at the end) gets two organisations, one
// with 100,000 calls and one with 1,000,000 (seedChatCompletions); the api runs in a process of
// its own (csv-export-server.ts) and each export is read over HTTP to its end, checking the rows
// against X-Total-Count. Printed per export: rows, bytes, time, rows/s, the api process's CPU time
// (which a loaded machine slows less than the wall clock), and its RSS before and at its peak
// (/proc/<pid>/status sampled every 10 ms), so the 100,000 and 1,000,000 row peaks show whether
// memory stays flat.
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createTestDb } from '@meterway/db/testing';
import { migrations, schema } from '../../apps/api/src/db/index.js';
import { seedChatCompletions } from './seed-chat-completions.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('Set DATABASE_URL to a Postgres server, e.g. postgres://postgres@127.0.0.1:5432/postgres');
  process.exit(1);
}
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
// sysconf(_SC_CLK_TCK): 100 on every Linux that Node supports.
const clockTicksPerSecond = 100;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
console.log(`csv export bench · ${new Date().toISOString()} · Node ${process.version} · ${cpus().length} CPUs · load average ${load()}`);

/** The process's resident set now and its high-water mark, in bytes. */
function memoryOf(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kB('VmRSS'), hwm: kB('VmHWM') };
}

function startApi(url: string): Promise<{ child: ChildProcess; base: string }> {
  const child = fork(new URL('./csv-export-server.ts', import.meta.url), [url], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve({ child, base: `http://127.0.0.1:${message.port}` }));
    child.once('exit', (code) => reject(new Error(`the api exited with ${code}`)));
  });
}

/** The process's CPU time so far (user + system), in seconds: fields 14 and 15 of /proc/<pid>/stat. */
function cpuSecondsOf(pid: number) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
}

/** Reads one export to its end while sampling the api's RSS. */
async function exportOnce(base: string, pid: number, identityId: string, query: string) {
  const before = memoryOf(pid).rss;
  const cpuBefore = cpuSecondsOf(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rss)), 10);
  const started = performance.now();
  try {
    const response = await fetch(`${base}/bff/chat-completions/export${query}`, { headers: { cookie: `bench=${identityId}` } });
    if (!response.ok || !response.body) throw new Error(`${response.status} ${await response.text()}`);
    let bytes = 0;
    let lines = 0;
    // The bench's fields hold no quotes or line breaks, so a line is a record.
    for await (const chunk of response.body) {
      const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      bytes += buffer.length;
      for (let at = buffer.indexOf(0x0a); at !== -1; at = buffer.indexOf(0x0a, at + 1)) lines++;
    }
    const seconds = (performance.now() - started) / 1000;
    const rows = lines - 1;
    const total = Number(response.headers.get('x-total-count'));
    if (rows !== total) throw new Error(`read ${rows} rows, X-Total-Count said ${total}`);
    return { rows, bytes, seconds, cpuSeconds: cpuSecondsOf(pid) - cpuBefore, before, peak: Math.max(peak, memoryOf(pid).rss) };
  } finally {
    clearInterval(sampler);
  }
}

const testDb = await createTestDb({ schema, migrations, databaseUrl });
let api: ChildProcess | undefined;
try {
  const organisations: { rows: number; identityId: string }[] = [];
  for (const rows of [100_000, 1_000_000]) {
    const identityId = randomUUID();
    const started = performance.now();
    await seedChatCompletions(testDb.databaseUrl!, { rows, identityId });
    console.log(`seeded ${rows.toLocaleString('en')} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    organisations.push({ rows, identityId });
  }
  const started = await startApi(testDb.databaseUrl!);
  api = started.child;
  const pid = api.pid!;
  const [small, large] = organisations as [(typeof organisations)[0], (typeof organisations)[0]];
  console.log(`api pid ${pid}, RSS after boot ${mb(memoryOf(pid).rss)}`);
  await exportOnce(started.base, pid, small.identityId, ''); // warm-up: JIT, pool connections
  console.log(`after a warm-up export of ${small.rows.toLocaleString('en')} rows: RSS ${mb(memoryOf(pid).rss)}, peak so far (VmHWM) ${mb(memoryOf(pid).hwm)}`);

  const runs = [
    ['100,000 rows, newest first', small, ''],
    ['1,000,000 rows, newest first', large, ''],
    ['1,000,000 rows, oldest first', large, '?asc=true'],
    ['100,000 rows, newest first (again)', small, ''],
  ] as const;
  for (const [name, organisation, query] of runs) {
    const run = await exportOnce(started.base, pid, organisation.identityId, query);
    console.log(
      `${name.padEnd(36)} ${run.rows.toLocaleString('en')} rows, ${mb(run.bytes)} in ${run.seconds.toFixed(1)} s: ` +
        `${Math.round(run.rows / run.seconds).toLocaleString('en')} rows/s, ${mb(run.bytes / run.seconds)}/s, api CPU ${run.cpuSeconds.toFixed(1)} s · ` +
        `api RSS before ${mb(run.before)}, peak ${mb(run.peak)} (+${mb(run.peak - run.before)})`,
    );
  }
  console.log(`api peak RSS over the whole run (VmHWM): ${mb(memoryOf(pid).hwm)} · load average ${load()}`);
} finally {
  api?.disconnect();
  await new Promise((resolve) => (api && api.exitCode === null ? api.once('exit', resolve) : resolve(undefined)));
  await testDb.close();
}
