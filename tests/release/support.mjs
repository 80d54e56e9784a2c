// The packed npm package the release tests check: $PKG_TARBALL (scripts/release-check packs it once,
// and the runtime suite installs the same file), else a fresh `npm pack` of $PKG_DIR or pkg/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'node_modules/.bin');

/** The tarball, its unpacked files (paths relative to the package root) and its package.json. */
export function packed() {
  const scratch = mkdtempSync(join(tmpdir(), 'plant-store-release-'));
  let tarball = process.env.PKG_TARBALL && resolve(process.env.PKG_TARBALL);
  if (!tarball) {
    const pkg = process.env.PKG_DIR ?? join(ROOT, 'pkg');
    const name = execFileSync('npm', ['pack', pkg, '--pack-destination', scratch, '--silent'], { encoding: 'utf8' });
    tarball = join(scratch, name.trim().split('\n').at(-1));
  }
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
  return JSON.parse(execFileSync('cargo', ['metadata', '--no-deps', '--format-version', '1', '--offline'], {
    cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20,
  }));
}
