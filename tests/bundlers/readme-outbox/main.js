// The README's outbox example as it is written (readme.ts, which the suite writes from its block),
// after what it leaves to the reader (reader.js): ES modules run in the order they are imported.
import './reader.js';
import './readme.ts';
