// The .wasm's bytes, inside the module: scripts/finish-pkg.mjs writes them in place of the two free
// names below once the entry is bundled and minified. Each byte is written as one or two characters
// of printable ASCII but the quotes, `<` and `\` (90 characters): the 88 byte values most frequent in
// this .wasm one character each, the others two (one of two prefixes, then any character); with no
// quote in it, no tool that reads the code can take a piece of it for a string of its own. A bundler
// leaves such a string as it is (one of UTF-8 characters, emscripten's encoding, is escaped by
// esbuild, SWC and Bun, up to twice its size after gzip), any charset reads it alike, and gzip
// finds in it the repeats of the .wasm, which base64 hides: bench/run prints what each costs. No
// library encodes bytes so; the decoder is the loop below.

const PREFIXES = 2;
const CHARS = 90;

/** The .wasm's bytes. */
export function wasmBytes() {
  // The text's characters as bytes (ASCII: their codes), natively: a loop over bytes is run faster
  // by an engine that has not compiled it yet than one over `charCodeAt`.
  const chars = new TextEncoder().encode(__PLANT_STORE_CLIENT_WASM__);
  // Which byte values are one character: a bit each, four to a hex digit, the lowest bit first.
  const singles = __PLANT_STORE_CLIENT_WASM_SINGLES__;
  // Codes in byte order: one character 2 to 89, two characters 90 on (90 × (prefix + 1) + index).
  const byCode = new Uint8Array(CHARS * (PREFIXES + 1));
  for (let byte = 0, one = PREFIXES, two = CHARS; byte < 256; byte++)
    byCode[(Number.parseInt(singles[byte >> 2], 16) >> (byte & 3)) & 1 ? one++ : two++] = byte;
  // The index of each character of the alphabet: printable ASCII from the space on, but "'`<\.
  const index = new Uint8Array(128);
  for (let char = 32, i = 0; char < 127; char++)
    if (!'"\'`<\\'.includes(String.fromCharCode(char))) index[char] = i++;
  const bytes = new Uint8Array(chars.length);
  let length = 0;
  for (let i = 0; i < chars.length; ) {
    const code = index[chars[i++]];
    bytes[length++] = byCode[code < PREFIXES ? CHARS * (code + 1) + index[chars[i++]] : code];
  }
  return bytes.subarray(0, length);
}
