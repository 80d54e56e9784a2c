// The .wasm's bytes, inside the module: scripts/finish-pkg.mjs writes them in place of the free name
// below as a string of one character per byte (code points 0 to 255, written as UTF-8, as
// emscripten's single-file output does: 3 % more than the .wasm after gzip, where base64 costs
// 28 %), ended by U+00FF. Decoded here rather than by a library: no decoder on npm takes this
// encoding, and the loop is five lines.

/**
 * The bytes, or null when the script was read in another encoding than UTF-8 (a classic script
 * served without a charset, in a page without one): each character of two bytes is then two, and
 * the last one is no longer U+00FF.
 */
export function wasmBytes() {
  const text = __PLANT_STORE_CLIENT_WASM__;
  const bytes = new Uint8Array(text.length - 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = text.charCodeAt(i);
  return text.charCodeAt(bytes.length) === 255 ? bytes : null;
}
