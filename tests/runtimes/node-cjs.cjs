// Node, CommonJS: `require` of the package (node.mjs, which has no top-level await; Node 20.19+ and
// 22.12+ can require such an ES module).
const api = require('plant-store-client');
const { check } = require('./check.mjs');

const [baseUrl, token, id, where] = process.argv.slice(2);
check(api, { baseUrl, token, id, where }).then((result) => console.log(JSON.stringify(result)));
