// The packed npm package the suites install or check: $PKG_TARBALL (scripts/release-check packs it
// once and checks it with publint and attw), else a fresh `npm pack` of $PKG_DIR or pkg/.
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { PKG } from './server.mjs';

/** The tarball's path; a fresh pack is written into `dir`. */
export function tarball(dir) {
  if (process.env.PKG_TARBALL) return resolve(process.env.PKG_TARBALL);
  const name = execFileSync('npm', ['pack', PKG, '--pack-destination', dir, '--silent'], {
    encoding: 'utf8',
  });
  return join(dir, name.trim().split('\n').at(-1));
}
