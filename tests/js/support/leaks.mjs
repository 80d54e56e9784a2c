// The token rule of issue 22 as the JS suites search for it: no text an error exposes holds a piece
// of the token (tests/js/secrets.test.mjs, tests/js/hostile.test.mjs).
import { inspect } from 'node:util';

/** The pieces of `token` whose presence is a leak: every 8-character window, or the whole of it. */
export function pieces(token) {
  if (token.length < 8) return [token];
  return Array.from({ length: token.length - 7 }, (_, i) => token.slice(i, i + 8));
}

/** Every text `err` exposes, by name: its own, its cause's, and its issues'. */
export function exposed(err) {
  const texts = {
    message: err?.message,
    String: String(err),
    stack: err?.stack,
    JSON: JSON.stringify(err),
    inspect: inspect(err, { depth: 6 }),
  };
  if (err?.cause !== undefined) {
    texts.cause = String(err.cause);
    texts['cause.stack'] = err.cause?.stack;
    texts['inspect(cause)'] = inspect(err.cause, { depth: 6 });
  }
  for (const [i, issue] of (err?.issues ?? []).entries())
    texts[`issues[${i}]`] = `${issue.path} ${issue.message}`;
  return texts;
}

/** The first piece of `token` in any text `err` exposes: `{ where, piece, text }`, or null. */
export function leak(err, token) {
  const all = pieces(token);
  for (const [where, text] of Object.entries(exposed(err))) {
    const piece = all.find((p) => String(text).includes(p));
    if (piece !== undefined) return { where, piece, text: String(text) };
  }
  return null;
}
