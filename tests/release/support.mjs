// The packed npm package the release tests check (the runtime suite installs the same file), and
// the workspace as Cargo sees it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT } from '../js/support/server.mjs';
import { tarball as packTarball } from '../js/support/tarball.mjs';

export { ROOT };
export const BIN = join(ROOT, 'node_modules/.bin');

/** The tarball, its unpacked files (paths relative to the package root) and its package.json. */
export function packed() {
  const scratch = mkdtempSync(join(tmpdir(), 'plant-store-release-'));
  const tarball = packTarball(scratch);
  execFileSync('tar', ['-xzf', tarball, '-C', scratch]);
  const root = join(scratch, 'package');
  const files = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return { tarball, root, files, manifest, scratch };
}

/** The workspace as Cargo sees it (`cargo metadata --no-deps`). */
export function cargoMetadata() {
  return JSON.parse(
    execFileSync('cargo', ['metadata', '--no-deps', '--format-version', '1', '--offline'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }),
  );
}
