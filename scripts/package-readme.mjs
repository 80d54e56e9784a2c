// The npm package's README, made from the repository's: a user of the package reads `npm install`
// and "Send a plant" first, where the repository's README opens with the checkout's two commands.
// The part of README.md between `<!-- checkout -->` and `<!-- /checkout -->` moves under a heading
// of its own (`## In a checkout`, before `## Versioning`), and the entries' sizes in "Install" are
// those of the package being built. scripts/finish-pkg.mjs writes it into the package.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzip9 } from '../bench/gzip.mjs';

const CHECKOUT = /\n<!-- checkout -->\n([\s\S]*?)\n<!-- \/checkout -->\n/;
/** The sentence of "Install" that gives the entries' sizes, as README.md writes it. */
export const SIZES = /`plant-store-client` [\d.]+ KB,(\s)`plant-store-client\/outbox` [\d.]+ KB/;

/** What a page loads for the entry `dir/index.js`, gzip -9: the entry, and the .wasm it fetches if it does. */
export function entryBytes(pkg, dir = '.') {
  const js = readFileSync(join(pkg, dir, 'index.js'));
  const wasm = join(pkg, dir, 'plant_store_client_bg.wasm');
  const fetched = js.includes('plant_store_client_bg.wasm') && existsSync(wasm);
  return gzip9(fetched ? Buffer.concat([js, readFileSync(wasm)]) : js);
}

/** The package's README: `readme` (README.md's text) reordered, with the sizes of the build in `pkg`. */
export function packageReadme(readme, pkg) {
  const checkout = readme.match(CHECKOUT);
  if (!checkout || !SIZES.test(readme) || !readme.includes('\n## Versioning\n'))
    throw new Error('package-readme: README.md lost its checkout markers, sizes or Versioning');
  const kb = (dir) => `${(entryBytes(pkg, dir) / 1024).toFixed(1)} KB`;
  const sizes = (_, gap) =>
    `\`plant-store-client\` ${kb('.')},${gap}\`plant-store-client/outbox\` ${kb('outbox')}`;
  const moved = `\n## In a checkout\n\n${checkout[1].trim()}\n\n## Versioning\n`;
  return readme
    .replace(checkout[0], '\n')
    .replace(SIZES, sizes)
    .replace('\n## Versioning\n', moved);
}
