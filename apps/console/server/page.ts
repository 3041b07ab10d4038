import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { paths } from '../src/config/paths';
import { type RuntimeConfig, runtimeConfigElementId } from '../src/config/runtime-config';

// The page the server answers for every client-side route: Vite's index.html plus, written in at
// boot, the runtime config and the route's own chunks. Without them the first paint waits for
// the entry script, then /config.json, then the screen's lazy chunks, one after the other.

const publicLayout = 'src/app/routes/public-layout.tsx';
const appLayout = 'src/app/routes/app-layout.tsx';
const screen = (name: string) => `src/app/routes/${name}.tsx`;
/** Mantine's whole stylesheet, which router.tsx loads with every screen but /login. */
const wholeSheet = '@mantine/core/styles.layer.css';

/** The lazy modules router.tsx loads for each path, layout first. */
export const routeModules: Readonly<Record<string, readonly string[]>> = {
  [paths.login.path]: [publicLayout, screen('login')],
  [paths.signup.path]: [wholeSheet, publicLayout, screen('signup')],
  [paths.recover.path]: [wholeSheet, publicLayout, screen('recover')],
  [paths.recoverPassword.path]: [wholeSheet, screen('recover-password')],
  [paths.termsOfService.path]: [wholeSheet, screen('terms-of-service')],
  [paths.verifyEmail.path]: [wholeSheet, screen('verify-email')],
  [paths.dashboard.path]: [wholeSheet, appLayout, screen('dashboard')],
  [paths.chatCompletions.path]: [wholeSheet, appLayout, screen('chat-completions')],
  [paths.addCredits.path]: [wholeSheet, appLayout, screen('add-credits')],
  [paths.admin.path]: [wholeSheet, appLayout, screen('admin')],
  [paths.adminUsers.path]: [wholeSheet, appLayout, screen('admin-users')],
  [paths.adminFeedback.path]: [wholeSheet, appLayout, screen('admin-feedback')],
};

/**
 * One chunk of Vite's manifest (build.manifest), keyed by source path relative to apps/console
 * (`../../node_modules/…` for a package's file) or by `_chunk-hash.js`.
 */
type ManifestChunk = { file: string; imports?: string[]; css?: string[] };
type Manifest = Record<string, ManifestChunk>;

export type Page = { body: string; etag: string };

/** The page of each route, and `fallback`, the page without preloads, for any other path. */
export type Pages = { pageFor: (pathname: string) => Page; fallback: Page };

/** Reads the build once and renders the page of every route, and the page for any other path. */
export function loadPages(publicDir: string, runtimeConfig: RuntimeConfig): Pages {
  const indexPath = join(publicDir, 'index.html');
  const manifestPath = join(publicDir, '.vite/manifest.json');
  for (const file of [indexPath, manifestPath]) {
    if (!existsSync(file)) throw new Error(`${file} is missing; run \`npm run build\` in apps/console first`);
  }
  const html = readFileSync(indexPath, 'utf8');
  const manifest = withPackageKeys(JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest);
  if (!html.includes('</head>')) throw new Error(`${indexPath} has no </head>`);

  const configTag = configScript(runtimeConfig);
  const render = (modules: readonly string[]): Page => {
    const tags = [configTag, ...preloadTags(manifest, modules, (file) => !html.includes(`/${file}"`))];
    const body = html.replace('</head>', `${tags.map((tag) => `    ${tag}\n`).join('')}  </head>`);
    return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  };

  const fallback = render([]);
  const pages = new Map(Object.entries(routeModules).map(([path, modules]) => [path, render(modules)]));
  return { pageFor: (pathname) => pages.get(pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname) ?? fallback, fallback };
}

/** The manifest, with each package file also under its package path (`@mantine/core/…`). */
function withPackageKeys(manifest: Manifest): Manifest {
  const packageKeys = Object.entries(manifest)
    .filter(([key]) => key.includes('node_modules/'))
    .map(([key, chunk]) => [key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length), chunk]);
  return { ...manifest, ...Object.fromEntries(packageKeys) };
}

/**
 * The modules' chunks and everything they import, as the tags that fetch them before they are
 * asked for; `wanted` leaves out what index.html already loads.
 */
function preloadTags(manifest: Manifest, modules: readonly string[], wanted: (file: string) => boolean): string[] {
  const scripts = new Set<string>();
  const styles = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the build's manifest; update routeModules in server/page.ts`);
    if (scripts.has(chunk.file) || styles.has(chunk.file)) return;
    (chunk.file.endsWith('.css') ? styles : scripts).add(chunk.file);
    for (const css of chunk.css ?? []) styles.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const module of modules) visit(module);
  return [
    ...[...styles].filter(wanted).map((file) => `<link rel="stylesheet" crossorigin href="/${file}">`),
    ...[...scripts].filter(wanted).map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`),
  ];
}

/**
 * The config as the element runtime-config.ts reads. A data block, never run, so the CSP needs no
 * 'unsafe-inline'; escaped so that no string in it can end the element.
 */
export function configScript(runtimeConfig: RuntimeConfig): string {
  const json = JSON.stringify(runtimeConfig).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  return `<script type="application/json" id="${runtimeConfigElementId}">${json}</script>`;
}
