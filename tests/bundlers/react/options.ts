// What the recipe's main.tsx imports: createPlant's options, from the page's query (`base`, `token`).
import type { PlantStoreOptions } from 'plant-store-client/outbox';

const query = new URLSearchParams(location.search);
export const options: PlantStoreOptions = {
  baseUrl: query.get('base') ?? '',
  token: query.get('token') ?? '',
};
