// What every runtime's consumer does with the installed package: one real createPlant against the
// reference server, and one NewPlant that fails validation (nothing is sent), after
// validateNewPlant, called before anything is awaited: every export works as the import resolves.
// Returns a plain, JSON-able summary that tests/js/support/checked.mjs checks.
export async function check(api, { baseUrl, token, id, where }) {
  const atImport = api.validateNewPlant({ id: 1, name: 'Fern', tag: 1 });
  await api.init();
  const options = { baseUrl, token };
  const plant = await api.createPlant({ id: BigInt(id), name: 'Fern', tag: where }, options);

  let invalid;
  try {
    await api.createPlant({ id: 1.5, name: 'Fern' }, options);
    invalid = { threw: false };
  } catch (err) {
    invalid = {
      threw: true,
      isPlantStoreError: err instanceof api.PlantStoreError,
      isError: err instanceof Error,
      name: err.name,
      kind: err.kind,
      paths: (err.issues ?? []).map((issue) => issue.path),
    };
  }
  return {
    atImport: atImport.issues.map((issue) => issue.path),
    plant,
    invalid,
    hasWindow: typeof window !== 'undefined',
  };
}
