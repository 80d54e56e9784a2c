// The .wasm as text inside the entries: js/entries/wasm.js decodes it, this encodes it (for
// scripts/finish-pkg.mjs, and for bench/sizes.mjs, which prices it beside other encodings).

// The free names in js/entries/wasm.js that the .wasm's bytes replace, as string literals, once the
// entry is bundled and minified.
export const WASM_TEXT = '__PLANT_STORE_CLIENT_WASM__';
export const WASM_SINGLES = '__PLANT_STORE_CLIENT_WASM_SINGLES__';

/**
 * The bytes of `wasm` as js/entries/wasm.js decodes them: the text, and which byte values are one
 * character (a hex digit for four of them, the lowest bit first), each a JS string literal. The
 * encoder of that decoder, as hand-written.
 */
export function wasmLiterals(wasm) {
  const prefixes = 2;
  const alphabet = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter(
    (char) => !'"\'`<\\'.includes(char),
  );
  const count = new Array(256).fill(0);
  for (const byte of wasm) count[byte]++;
  const byCount = [...count.keys()].sort((a, b) => count[b] - count[a] || a - b);
  const single = new Set(byCount.slice(0, alphabet.length - prefixes));
  const codes = [];
  let one = prefixes;
  let two = 0;
  for (let byte = 0; byte < 256; byte++) {
    if (single.has(byte)) codes[byte] = alphabet[one++];
    else {
      codes[byte] = alphabet[Math.floor(two / alphabet.length)] + alphabet[two % alphabet.length];
      two++;
    }
  }
  let text = '';
  for (const byte of wasm) text += codes[byte];
  let singles = '';
  for (let digit = 0; digit < 64; digit++) {
    let bits = 0;
    for (let bit = 0; bit < 4; bit++) if (single.has(digit * 4 + bit)) bits |= 1 << bit;
    singles += bits.toString(16);
  }
  return { [WASM_TEXT]: `"${text}"`, [WASM_SINGLES]: `"${singles}"` };
}
