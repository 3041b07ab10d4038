// The architecture rules of STYLE.md, checked on every `npm run lint`: arrows point one way and
// nothing imports in a circle. Each rule's comment says what it protects.
const consoleSrc = '^apps/console/src/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Import cycles make load order and ownership unclear.', from: {}, to: { circular: true } },
    {
      name: 'console-feature-to-feature',
      severity: 'error',
      comment: 'A feature never imports another feature; compose them in app/.',
      from: { path: `${consoleSrc}features/([^/]+)/` },
      to: { path: `${consoleSrc}features/`, pathNot: `${consoleSrc}features/$1/` },
    },
    {
      name: 'console-only-app-imports-app',
      severity: 'error',
      comment: 'Console: app → features → components/lib/config.',
      from: { path: `${consoleSrc}(features|components|lib|config)/` },
      to: { path: `${consoleSrc}app/` },
    },
    {
      name: 'console-shared-never-imports-features',
      severity: 'error',
      from: { path: `${consoleSrc}(components|lib|config)/` },
      to: { path: `${consoleSrc}features/` },
    },
    {
      name: 'service-routes-domain-db',
      severity: 'error',
      comment: 'Services: routes → domain → db; plain code never reaches back into transport.',
      from: { path: '^apps/(api|identity)/src/(domain|flows|db|mail)/' },
      to: { path: '^apps/(api|identity)/src/(routes|http|plugins)/' },
    },
    {
      name: 'service-db-is-a-leaf',
      severity: 'error',
      from: { path: '^apps/(api|identity)/src/db/' },
      to: { path: '^apps/(api|identity)/src/(domain|flows|routes|http|plugins|mail)/' },
    },
    {
      name: 'services-talk-over-http',
      severity: 'error',
      comment: 'api and identity never import each other.',
      from: { path: '^apps/(api|identity)/' },
      to: { path: '^apps/(api|identity|console)/', pathNot: '^apps/$1/' },
    },
    {
      name: 'packages-never-import-apps',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
