// The openapi-fetch peer's createPlant: openapi-fetch's client typed by openapi-typescript's paths
// (./schema.d.ts, bench/peers/build.mjs), the bearer token as a default header, an error status thrown.
// It validates nothing at run time.
import createClient from 'openapi-fetch';
import type { paths } from './schema';

type NewPlant = paths['/plants']['post']['requestBody']['content']['application/json'];
type Plant = paths['/plants']['post']['responses'][200]['content']['application/json'];

export function makeCreatePlant(options: {
  baseUrl: string;
  token: string;
  fetch: typeof fetch;
}): (plant: NewPlant) => Promise<Plant> {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: { Authorization: `Bearer ${options.token}` },
  });
  return async (plant) => {
    const { data, error, response } = await client.POST('/plants', { body: plant });
    if (data === undefined) throw new Error(`status ${response.status}: ${JSON.stringify(error)}`);
    return data;
  };
}
