// The check both package suites (runtimes, bundlers) make of one consumer's summary
// (tests/runtimes/check.mjs), and the ids they give their consumers.
import assert from 'node:assert/strict';

/**
 * Checks a consumer's summary: validateNewPlant answered as the import resolved, the call resolved
 * to the created Plant, an id of 1.5 was a validation PlantStoreError, `window` was there or not,
 * and the reference `server` stored the plant.
 */
export async function assertChecked(server, result, { id, where, window }) {
  assert.equal(result.error, undefined, `the consumer failed: ${result.error}`);
  assert.deepEqual(result.atImport, ['tag'], 'validateNewPlant answers as the import resolves');
  assert.deepEqual(
    result.plant,
    { name: 'Fern', tag: where },
    'createPlant resolves to the created Plant',
  );
  assert.deepEqual(
    result.invalid,
    {
      threw: true,
      isPlantStoreError: true,
      isError: true,
      name: 'PlantStoreError',
      kind: 'validation',
      paths: ['id'],
    },
    'an id of 1.5 is a validation PlantStoreError (instanceof the exported class)',
  );
  assert.equal(result.hasWindow, window);
  assert.deepEqual(
    await server.json(`/__test/plants/${id}`),
    { id: String(id), name: 'Fern', tag: where },
    'the server stored the plant, its id exact',
  );
}

/**
 * What a package suite checks its consumers with: `nextId()`, a fresh plant id from 2^53 + 1 on
 * (which arrives exact only as a BigInt), and `assertChecked(result, { id, where, window? })`
 * against the reference server `server()` returns (the suite starts it later), `window` being
 * `windowByDefault` unless given.
 */
export function consumers(server, windowByDefault) {
  let next = 9007199254740993n;
  return {
    nextId: () => next++,
    assertChecked: (result, { window = windowByDefault, ...call }) =>
      assertChecked(server(), result, { window, ...call }),
  };
}
