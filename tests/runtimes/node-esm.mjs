// Node, ES module: a plain import of the package (the `node` condition: node.mjs).
import * as api from 'plant-store-client';
import { check } from './check.mjs';

const [baseUrl, token, id, where] = process.argv.slice(2);
console.log(JSON.stringify(await check(api, { baseUrl, token, id, where })));
