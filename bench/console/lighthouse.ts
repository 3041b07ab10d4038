import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { chromeFlags, chromiumPath } from '../../e2e/support/browser.js';

export type LighthouseFigure = {
  score: number;
  /** Milliseconds, as Lighthouse reports them (simulated throttling). */
  metrics: { fcp: number; lcp: number; tbt: number; cls: number; speedIndex: number };
};

const lighthouseCli = () => join(dirname(createRequire(import.meta.url).resolve('lighthouse')), '../cli/index.js');

/**
 * One Lighthouse 12 performance run through its CLI (Lighthouse's default: a mid-range phone on
 * slow 4G, simulated), with Debian's Chromium and the flags above. `reportPath` keeps the JSON report.
 */
export async function runLighthouse(url: string, { preset, reportPath }: { preset?: 'desktop'; reportPath?: string } = {}): Promise<LighthouseFigure> {
  const args = [
    lighthouseCli(),
    url,
    '--only-categories=performance',
    '--output=json',
    '--output-path=stdout',
    '--quiet',
    `--chrome-flags=${chromeFlags.join(' ')}`,
    ...(preset ? [`--preset=${preset}`] : []),
  ];
  const report = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? chromiumPath },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`lighthouse exited with ${code}`))));
  });
  if (reportPath) writeFileSync(reportPath, report);
  const lhr = JSON.parse(report) as {
    runtimeError?: { message: string };
    categories: { performance: { score: number | null } };
    audits: Record<string, { numericValue?: number }>;
  };
  if (lhr.runtimeError) throw new Error(`lighthouse: ${lhr.runtimeError.message}`);
  const audit = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  return {
    score: lhr.categories.performance.score ?? 0,
    metrics: {
      fcp: audit('first-contentful-paint'),
      lcp: audit('largest-contentful-paint'),
      tbt: audit('total-blocking-time'),
      cls: audit('cumulative-layout-shift'),
      speedIndex: audit('speed-index'),
    },
  };
}
