import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EnvError, parseEnv, publicUrls, stackEnvShape } from './env.js';

const schema = z.object(stackEnvShape);

describe('parseEnv', () => {
  it('applies the documented defaults', () => {
    const env = parseEnv(schema, {});
    expect(env).toMatchObject({ HOST: '127.0.0.1', CONSOLE_PORT: 3000, API_PORT: 8080, IDENTITY_PORT: 4000, DATA_DIR: './data' });
    expect(publicUrls(env)).toEqual({
      consoleUrl: 'http://localhost:3000',
      apiUrl: 'http://localhost:8080',
      identityUrl: 'http://localhost:4000',
    });
  });

  it('derives the default URLs from the ports and strips a trailing slash from given ones', () => {
    const env = parseEnv(schema, { CONSOLE_PORT: '3100', API_URL: 'https://api.example.com/' });
    expect(publicUrls(env)).toMatchObject({ consoleUrl: 'http://localhost:3100', apiUrl: 'https://api.example.com' });
  });

  it('treats empty values as unset', () => {
    const env = parseEnv(schema, { API_PORT: '', DATABASE_URL: '' });
    expect(env.API_PORT).toBe(8080);
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it('names every invalid variable with its value', () => {
    const failure = (() => {
      try {
        parseEnv(schema, { API_PORT: 'abc', IDENTITY_PORT: '70000', CONSOLE_URL: 'ftp://x', DATABASE_URL: 'mysql://x' });
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(EnvError);
    const problems = (failure as EnvError).problems;
    expect(problems).toEqual([
      'API_PORT: must be a port number between 1 and 65535 (got "abc")',
      'IDENTITY_PORT: must be a port number between 1 and 65535 (got "70000")',
      'CONSOLE_URL: must be an http:// or https:// URL (got "ftp://x")',
      'DATABASE_URL: must be a postgres:// URL (got "mysql://x")',
    ]);
  });

  it('takes a Postgres URL in any form node-postgres connects with: a host, a Unix socket, sslmode', () => {
    for (const url of [
      'postgres://app:pw@db.example.com:5432/app?sslmode=verify-full',
      'postgres://postgres@/postgres?host=/var/run/postgresql',
      'postgresql:///app?host=/var/run/postgresql',
      'socket:/var/run/postgresql?db=app',
    ]) {
      expect(parseEnv(schema, { DATABASE_URL: url }).DATABASE_URL).toBe(url);
    }
    for (const url of ['mysql://x', 'postgres://db.example.com:99999/app', 'db.example.com']) {
      expect(() => parseEnv(schema, { DATABASE_URL: url })).toThrow(EnvError);
    }
  });

  it("never echoes a secret in its refusal: a secret variable's value, a URL's password", () => {
    const problems = (source: NodeJS.ProcessEnv) => {
      try {
        parseEnv(z.object({ ...stackEnvShape, API_SECRET: z.string().min(32, 'must be at least 32 characters').optional() }), source);
      } catch (error) {
        return (error as EnvError).problems;
      }
      return [];
    };
    expect(problems({ API_SECRET: 'short-secret' })).toEqual(['API_SECRET: must be at least 32 characters']);
    expect(problems({ METRICS_TOKEN: 'too-short' })).toEqual(['METRICS_TOKEN: must be at least 16 characters']);
    expect(problems({ DATABASE_URL: 'postgres://app:hunter2@db.example.com:99999/app' })).toEqual([
      'DATABASE_URL: must be a postgres:// URL (got "postgres://app:***@db.example.com:99999/app")',
    ]);
  });
});
