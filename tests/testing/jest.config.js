// Jest runs the app's ES modules as they are (node --experimental-vm-modules), in jsdom with Node's
// fetch (jest-fixed-jsdom, as MSW's docs give).
export default {
  testEnvironment: 'jest-fixed-jsdom',
  testMatch: ['**/test/*.jest.test.js'],
  transform: {},
};
