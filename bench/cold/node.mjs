// Cold start in Node: `node node.mjs ours|theirs` runs ours.js or theirs.js in this fresh process and
// prints its figures as JSON. Run from a consumer that has the packed package installed.
await import(`./${process.argv[2]}.js`);
console.log(JSON.stringify(globalThis.coldStart));
