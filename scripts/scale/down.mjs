#!/usr/bin/env node
// `npm run scale:down`: stops every process of the topology and removes its hosts, bridge and .scale/.
import { tearDown } from './teardown.mjs';

await tearDown();
console.log('The scale topology is down.');
