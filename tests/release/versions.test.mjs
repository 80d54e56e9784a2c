// One version for the crates and the npm package: `[workspace.package] version` in Cargo.toml. Fails
// when anything that names a version drifts from it: a crate with its own version, the client's
// requirement on plant-store-model, the packed package.json, the install lines of the crate
// READMEs, a CHANGELOG section newer than the version.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { packed, cargoMetadata, ROOT } from './support.mjs';

const PUBLISHED = ['plant-store-client', 'plant-store-model'];

describe('one version', () => {
  let metadata;
  let version;
  let pack;
  before(() => {
    metadata = cargoMetadata();
    const root = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8');
    const workspace = root.split(/^\[workspace\.package\]$/m)[1]?.split(/^\[/m)[0] ?? '';
    version = workspace.match(/^version = "([^"]+)"$/m)?.[1];
    assert.ok(semver.valid(version), `[workspace.package] version in Cargo.toml: ${version}`);
    pack = packed();
  });
  after(() => rmSync(pack.scratch, { recursive: true, force: true }));

  it('every crate of the workspace takes the workspace version', () => {
    for (const crate of metadata.packages) {
      const manifest = readFileSync(crate.manifest_path, 'utf8');
      assert.match(
        manifest,
        /^version\.workspace = true$/m,
        `${crate.name} declares its own version`,
      );
      assert.equal(crate.version, version, crate.name);
    }
    assert.deepEqual(
      PUBLISHED.filter((name) => !metadata.packages.some((p) => p.name === name)),
      [],
    );
  });

  it('the client requires plant-store-model at that version, by path and version', () => {
    const client = metadata.packages.find((p) => p.name === 'plant-store-client');
    const model = client.dependencies.find((d) => d.name === 'plant-store-model');
    assert.ok(model.path, 'by path, for the workspace');
    assert.equal(model.req, `^${version}`, 'by version, for crates.io');
  });

  it('the npm package has that version', () => {
    assert.equal(pack.manifest.name, 'plant-store-client');
    assert.equal(pack.manifest.version, version, `package.json in ${pack.tarball}`);
  });

  it('the crate READMEs install a requirement that the version meets', () => {
    for (const [file, crate] of [
      ['README.crate.md', 'plant-store-client'],
      ['model/README.md', 'plant-store-model'],
    ]) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      // `crate = "0.1"`, or a table with `version = "0.1"` (the client's, with its features).
      const req = text
        .match(new RegExp(`^${crate} = (?:"([^"]+)"|\\{ version = "([^"]+)".*\\})$`, 'm'))
        ?.slice(1)
        .find(Boolean);
      assert.ok(req, `${file} shows how to depend on ${crate}`);
      // Cargo's default requirement is a caret one: "0.1" means ^0.1.
      assert.ok(
        semver.satisfies(version, `^${req}`),
        `${file}: "${req}" does not admit ${version}`,
      );
      assert.ok(
        !semver.satisfies(
          semver.inc(version, semver.major(version) ? 'major' : 'minor'),
          `^${req}`,
        ),
        `${file}: "${req}" is looser than the version's compatible range`,
      );
    }
  });

  it('the CHANGELOG has an Unreleased section and no section newer than the version', () => {
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
    assert.match(changelog, /^## \[Unreleased\]$/m);
    const released = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+[^\]]*)\]/gm)].map((m) => m[1]);
    for (const v of released)
      assert.ok(semver.lte(v, version), `CHANGELOG has ${v}, newer than ${version}`);
  });
});
