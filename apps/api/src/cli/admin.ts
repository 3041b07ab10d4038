// `npm run admin -- <command> [arguments]`: the operator CLI; `npm run admin -- help` lists the
// commands. See cli/operator-client.ts for how it reaches the database, and docs/decisions/006.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2), process.env);
