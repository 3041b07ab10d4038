/** A browser's cookie store for one site: what the tests' fetch sends back, like a browser would. */
export function cookieJar() {
  const cookies = new Map<string, string>();
  const store = (response: Response) => {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';');
      const [name = '', ...value] = pair.trim().split('=');
      const maxAge = attributes.map((attribute) => attribute.trim().toLowerCase()).find((attribute) => attribute.startsWith('max-age='));
      const expires = attributes.map((attribute) => attribute.trim()).find((attribute) => attribute.toLowerCase().startsWith('expires='));
      const gone = (maxAge && Number(maxAge.slice(8)) <= 0) || (expires && new Date(expires.slice(8)).getTime() < Date.now());
      if (gone) cookies.delete(name);
      else cookies.set(name, value.join('='));
    }
  };
  const header = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  /** fetch with this jar; redirects are followed by hand so every hop's cookies are kept. */
  const fetchWithJar = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = input instanceof Request ? input.url : String(input);
    let request: RequestInit = { ...init, redirect: 'manual' };
    for (let hop = 0; hop < 10; hop++) {
      const headers = new Headers(request.headers);
      if (cookies.size) headers.set('cookie', header());
      const response = await fetch(url, { ...request, headers });
      store(response);
      const location = response.headers.get('location');
      if (![301, 302, 303, 307, 308].includes(response.status) || !location || !location.startsWith('http://127.0.0.1')) return response;
      url = new URL(location, url).toString();
      if (response.status === 303) request = { redirect: 'manual', headers: request.headers ?? {} };
    }
    throw new Error('too many redirects');
  };
  return { cookies, header, fetch: fetchWithJar };
}
