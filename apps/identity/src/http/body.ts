/**
 * Submissions arrive as JSON (the SDK) or as HTML forms, whose names are flat (`traits.email`).
 * Both become the same nested object.
 */
export function submittedBody(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const path = key.split('.');
    let target = out;
    for (const segment of path.slice(0, -1)) {
      if (segment === '__proto__' || segment === 'constructor' || segment === 'prototype') return out;
      const next = target[segment];
      target = (target[segment] = next && typeof next === 'object' && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
    }
    const last = path[path.length - 1];
    if (last && last !== '__proto__' && last !== 'constructor' && last !== 'prototype') target[last] = value;
  }
  return out;
}
