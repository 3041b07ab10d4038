import { gzipSync } from 'node:zlib';
import { launchBrowser } from '../e2e/support/browser.js';

/** Gzipped bytes of every script the browser loads to show /login, lazy route chunks included. */
export async function measureBundle(consoleUrl: string): Promise<void> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const scripts = new Map<string, number>();
    page.on('response', async (response) => {
      if (!response.url().endsWith('.js')) return;
      scripts.set(response.url(), gzipSync(await response.body()).length);
    });
    await page.goto(`${consoleUrl}/login`, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Login' }).waitFor();
    const total = [...scripts.values()].reduce((sum, size) => sum + size, 0);
    console.log(`console /login JS     ${scripts.size} files, ${(total / 1024).toFixed(1)} kB gzipped (everything loaded to show the form)`);
  } finally {
    await browser.close();
  }
}
