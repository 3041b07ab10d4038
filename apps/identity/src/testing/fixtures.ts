import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '@meterway/service';
import { expect } from 'vitest';

/** The identity protocol fixtures live with the contracts, so the console's tests render the same JSON. */
export const fixturesDir = join(packagePath(import.meta.url, '..', '..', 'packages/contracts/fixtures/identity'));

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const timestamp = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

/** Replaces what differs between runs (ids, times, tokens, ports, addresses) with stable placeholders. */
export function normalise(value: unknown, replacements: Record<string, string> = {}): unknown {
  let text = JSON.stringify(value);
  for (const [from, to] of Object.entries(replacements)) text = text.split(from).join(to);
  text = text
    .replace(uuid, '00000000-0000-4000-8000-000000000000')
    .replace(timestamp, '2026-01-01T00:00:00.000Z')
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://localhost:4000')
    .replace(/"value":"[A-Za-z0-9+/]{86}=="/g, '"value":"<csrf_token>"')
    .replace(/data:image\/png;base64,[A-Za-z0-9+/=]+/g, 'data:image/png;base64,<qr>')
    .replace(/ory_lo_[a-f0-9]{32}/g, 'ory_lo_<token>')
    .replace(/"[A-Z2-7]{32}"/g, '"<TOTP secret>"')
    .replace(/within the next \d+\.\d{2} minutes/g, 'within the next 60.00 minutes')
    .replace(/"since":\d+/g, '"since":0')
    .replace(/"(expired_at_unix|privileged_session_expires_at_unix)":\d+/g, '"$1":0')
    .replace(/expired \d+\.\d{2} minutes ago/g, 'expired 1.00 minutes ago');
  return JSON.parse(text);
}

/** How to write the fixtures on purpose; the tests never write one unasked. */
export const updateFixturesCommand = 'UPDATE_FIXTURES=1 npx vitest run --project identity apps/identity/src/contract/fixtures.test.ts';

/**
 * Asserts the server's real output against the committed fixture; a missing one fails the test
 * in every run (the console's tests render these files too). With `UPDATE_FIXTURES=1` it writes
 * the file instead; review the diff before committing.
 */
export function matchFixture(name: string, actual: unknown, replacements: Record<string, string> = {}) {
  const file = join(fixturesDir, `${name}.json`);
  const normalised = normalise(actual, replacements);
  if (process.env.UPDATE_FIXTURES === '1') {
    mkdirSync(fixturesDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(normalised, null, 2)}\n`);
    return;
  }
  if (!existsSync(file))
    throw new Error(`fixture ${name}.json is missing from ${fixturesDir}: write it with \`${updateFixturesCommand}\`, review it and commit it`);
  expect(normalised).toEqual(JSON.parse(readFileSync(file, 'utf8')));
}
