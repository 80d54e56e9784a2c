// Deno 2: the package from node_modules (the `node` condition: node.mjs). Needs only --allow-net.
import * as api from 'plant-store-client';
import { check } from './check.mjs';

const [baseUrl, token, id, where] = Deno.args;
console.log(JSON.stringify(await check(api, { baseUrl, token, id, where })));
