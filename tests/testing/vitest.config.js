// Vitest in Node: the environment (node, jsdom, happy-dom) is chosen on the command line.
export default {
  test: { include: ['test/plants.test.js', 'test/queue.test.js', 'test/plants.undici.test.js'] },
};
