/** A person's browser session against the stack's identity service, over plain HTTP. */
export function identitySession(identityUrl: string) {
  const cookies = new Map<string, string>();
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  async function call(method: string, url: string, body?: unknown, extraHeaders: Record<string, string> = {}) {
    const response = await fetch(url.startsWith('http') ? url : `${identityUrl}${url}`, {
      method,
      headers: { accept: 'application/json', cookie: cookieHeader(), ...(body ? { 'content-type': 'application/json' } : {}), ...extraHeaders },
      ...(body ? { body: JSON.stringify(body) } : {}),
      redirect: 'manual',
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const [name = '', ...value] = pair.split('=');
      if (/max-age=(0|-)/i.test(header)) cookies.delete(name);
      else cookies.set(name, value.join('='));
    }
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as any) : null };
  }
  const csrf = (flow: any) => flow.ui.nodes.find((node: any) => node.attributes.name === 'csrf_token').attributes.value as string;

  /** Signs up and verifies the address with the code from the dev outbox. */
  async function signUp(email: string, password: string) {
    const flow = await call('GET', '/self-service/registration/browser');
    const registered = await call('POST', `/self-service/registration?flow=${flow.body.id}`, { method: 'password', traits: { email }, password, csrf_token: csrf(flow.body) });
    if (registered.status !== 200) throw new Error(`sign-up failed: ${JSON.stringify(registered.body)}`);
    const outbox = await call('GET', `/dev/outbox?to=${encodeURIComponent(email)}`);
    const verificationId = registered.body.continue_with.find((item: any) => item.action === 'show_verification_ui').flow.id;
    const verified = await call('POST', `/self-service/verification?flow=${verificationId}`, { method: 'code', code: outbox.body.messages.at(-1).code });
    if (verified.body.state !== 'passed_challenge') throw new Error('verification failed');
  }

  return { call, signUp, cookieHeader };
}
