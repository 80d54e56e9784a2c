// A hey-api peer's createPlant, as its user writes it: the generated fetch client with the base URL, the
// bearer token and fetch, and the generated SDK function, throwing on an error status. The generated
// code is in ./gen (bench/peers/build.mjs); the same adapter serves zod, zod/mini and valibot.
import { createClient, createConfig } from './gen/client';
import { createPlant } from './gen/sdk.gen';
import type { NewPlant, Plant } from './gen/types.gen';

export function makeCreatePlant(options: {
  baseUrl: string;
  token: string;
  fetch: typeof fetch;
}): (plant: NewPlant) => Promise<Plant> {
  const client = createClient(
    createConfig({ baseUrl: options.baseUrl, auth: options.token, fetch: options.fetch }),
  );
  return async (plant) => (await createPlant({ client, body: plant, throwOnError: true })).data;
}
