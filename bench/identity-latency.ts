import autocannon from 'autocannon';

type Flow = { id: string; ui: { nodes: { attributes: { name?: string; value?: unknown } }[] }; session?: unknown };

/** Latency of whoami (every console request pays it) and of a password login (argon2id dominates). */
export async function measureIdentity(identityUrl: string): Promise<void> {
  const email = `bench-${Date.now()}@example.com`;
  const password = 'a long and unusual passphrase 42';
  const jar = new Map<string, string>();
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${identityUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const [name = '', ...value] = pair.split('=');
      jar.set(name, value.join('='));
    }
    return (await response.json().catch(() => ({}))) as Flow;
  };
  const csrf = (flow: Flow) => flow.ui.nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value;

  const registration = await call('GET', '/self-service/registration/browser');
  await call('POST', `/self-service/registration?flow=${registration.id}`, { method: 'password', traits: { email }, password, csrf_token: csrf(registration) });
  const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');

  for (const connections of [1, 16]) {
    const result = await autocannon({ url: `${identityUrl}/sessions/whoami`, headers: { cookie, accept: 'application/json' }, connections, duration: 5 });
    console.log(
      `identity whoami       c=${String(connections).padEnd(3)} p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  ${Math.round(result.requests.average)} req/s  errors ${result.errors + result.non2xx}`,
    );
  }

  const durations: number[] = [];
  for (let i = 0; i < 60; i++) {
    jar.clear();
    const flow = await call('GET', '/self-service/login/browser');
    const started = performance.now();
    const answer = await call('POST', `/self-service/login?flow=${flow.id}`, { method: 'password', identifier: email, password, csrf_token: csrf(flow) });
    durations.push(performance.now() - started);
    if (!answer.session) throw new Error(`login failed: ${JSON.stringify(answer)}`);
  }
  durations.sort((a, b) => a - b);
  const at = (q: number) => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))]?.toFixed(1);
  console.log(`identity login submit  sequential, ${durations.length} logins  p50 ${at(0.5)} ms  p99 ${at(0.99)} ms`);
}
