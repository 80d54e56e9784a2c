// The size measure of every figure: GNU gzip -9, as `gzip -9 < pkg/index.js | wc -c` counts
// (the issues' targets and the before-stop check use it). Node's zlib at level 9 compresses the same
// bytes about 2 % larger, so it is not used.
import { execFileSync } from 'node:child_process';

/** The bytes of `bytes` compressed by `gzip -9`. */
export const gzip9 = (bytes) =>
  execFileSync('gzip', ['-9', '-c', '-n'], { input: bytes, maxBuffer: 64 << 20 }).length;
