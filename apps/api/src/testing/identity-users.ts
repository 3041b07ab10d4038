/**
 * Signs people up on a real identity service and hands back their browser cookies. `outboxes`:
 * the identity instances whose dev outbox may hold the verification code (behind a load
 * balancer, whichever served the sign-up).
 */
export function identityUsers(identityUrl: string, outboxes: readonly string[] = [identityUrl]) {
  let counter = 0;
  const password = 'a long and unusual passphrase 42';

  async function call(cookies: Map<string, string>, method: string, path: string, body?: unknown) {
    const response = await fetch(`${identityUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
      redirect: 'manual',
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const [name = '', ...value] = pair.split('=');
      if (/max-age=0|max-age=-/i.test(header)) cookies.delete(name);
      else cookies.set(name, value.join('='));
    }
    return { status: response.status, body: (await response.json().catch(() => null)) as any };
  }
  async function verificationCode(email: string): Promise<string> {
    for (const outbox of outboxes) {
      const mail = (await (await fetch(`${outbox}/dev/outbox?to=${encodeURIComponent(email)}`)).json()) as { messages: { code?: string }[] };
      const code = mail.messages.at(-1)?.code;
      if (code) return code;
    }
    throw new Error(`no verification code for ${email} in ${outboxes.join(', ')}`);
  }
  const csrf = (flow: any) => flow.ui.nodes.find((node: any) => node.attributes.name === 'csrf_token').attributes.value;

  /** A new identity; `verified: false` leaves its address unverified. Returns its Cookie header. */
  async function signUp(options: { email?: string; verified?: boolean } = {}) {
    const email = options.email ?? `api-${Date.now().toString(36)}-${(counter++).toString(36)}@example.com`;
    const cookies = new Map<string, string>();
    const flow = await call(cookies, 'GET', '/self-service/registration/browser');
    const registered = await call(cookies, 'POST', `/self-service/registration?flow=${flow.body.id}`, {
      method: 'password',
      traits: { email },
      password,
      csrf_token: csrf(flow.body),
    });
    if (registered.status !== 200) throw new Error(`sign-up failed: ${JSON.stringify(registered.body)}`);
    if (options.verified !== false) {
      const code = await verificationCode(email);
      const verificationId = registered.body.continue_with.find((item: any) => item.action === 'show_verification_ui').flow.id;
      await call(cookies, 'POST', `/self-service/verification?flow=${verificationId}`, { method: 'code', code });
    }
    const header = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return {
      email,
      identityId: registered.body.identity.id as string,
      get cookie() {
        return header();
      },
      /** Calls identity as this person's browser (cookies kept up to date). */
      identity: (method: string, path: string, body?: unknown) => call(cookies, method, path, body),
      csrf,
    };
  }

  return { signUp };
}
