// A CommonJS TypeScript consumer: its imports compile to require(), which Node 20.19 and later
// allow of an ES module. tsc accepts that under module nodenext (TypeScript 5.8 and later); under
// node16 it reports TS1479, as tests/js/types.test.mjs asserts and docs/runtimes.md says.
import { createPlant, PlantStoreError, type Plant } from 'plant-store-client';

export async function create(): Promise<string> {
  try {
    const plant: Plant = await createPlant({ id: 1, name: 'Fern' }, { baseUrl: 'https://h', token: 't' });
    return plant.name;
  } catch (err) {
    return err instanceof PlantStoreError && err.kind === 'rejected' ? String(err.code) : 'failed';
  }
}
