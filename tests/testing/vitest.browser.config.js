// Vitest's browser mode in Chromium through Playwright (CHROMIUM: the browser's path, here
// Debian's), with MSW's service worker served from public/ (`npx msw init public`).
import { playwright } from '@vitest/browser-playwright';

export default {
  test: {
    include: ['test/plants.browser.test.js'],
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({
        launchOptions: {
          executablePath: process.env.CHROMIUM,
          args: ['--no-sandbox', '--disable-gpu'],
        },
      }),
      instances: [{ browser: 'chromium' }],
    },
  },
};
