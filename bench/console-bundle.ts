import { gzipSync } from 'node:zlib';
import { launchBrowser } from '../e2e/support/browser.js';

export type BundleFigure = { files: { url: string; gzipBytes: number }[]; totalGzipBytes: number };

/**
 * Gzipped bytes of every script Chromium loads to show /login, lazy route chunks included: the
 * page's own requests are followed, so a chunk counts only when the screen really needs it.
 * Level 9, as the .gz files the console's server sends.
 */
export async function measureBundle(consoleUrl: string): Promise<BundleFigure> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const pending: Promise<void>[] = [];
    const files: BundleFigure['files'] = [];
    page.on('response', (response) => {
      if (response.request().resourceType() !== 'script') return;
      pending.push(
        response.body().then((body) => {
          files.push({ url: response.url(), gzipBytes: gzipSync(body, { level: 9 }).length });
        }),
      );
    });
    await page.goto(`${consoleUrl}/login`, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Login' }).waitFor();
    await Promise.all(pending);
    const totalGzipBytes = files.reduce((sum, file) => sum + file.gzipBytes, 0);
    console.log(`console /login JS     ${files.length} files, ${kB(totalGzipBytes)} gzipped (everything loaded to show the form)`);
    return { files, totalGzipBytes };
  } finally {
    await browser.close();
  }
}

export const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
