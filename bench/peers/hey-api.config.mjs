// The hey-api peers' generator config: @hey-api/openapi-ts with its fetch client and SDK plugin, request
// and response validation on (as ours validates both), one output per validator. bench/peers/build.mjs
// passes the contract and the scratch directory.
const validators = {
  'hey-api-zod': { name: 'zod' },
  'hey-api-zod-mini': { name: 'zod', compatibilityVersion: 'mini' },
  'hey-api-valibot': { name: 'valibot' },
};

export default (spec, outDir) =>
  Object.entries(validators).map(([peer, validator]) => ({
    input: spec,
    output: { path: `${outDir}/${peer}/gen` },
    logs: { level: 'silent' },
    plugins: [
      '@hey-api/client-fetch',
      { name: '@hey-api/sdk', validator: { request: true, response: true } },
      validator,
    ],
  }));
