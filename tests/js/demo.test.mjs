// End to end: the demo page in www/ driven in headless Chromium against the reference server, which
// serves the page, the built package and the API on one origin. Saves artifacts/demo.png (desktop)
// and artifacts/demo-phone.png (375 px wide) to look at.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from './support/browser.mjs';
import { startServer, ROOT, PKG, TOKEN } from './support/server.mjs';

const ARTIFACTS = join(ROOT, 'artifacts');
const BIG_ID = '9007199254740993'; // 2^53 + 1: a Number would turn it into ...992

describe('demo page (www/) in headless Chromium', { timeout: 90_000 }, () => {
  let server;
  let browser;
  let page;
  const seen = { console: [], errors: [], requests: [] };

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer({ www: join(ROOT, 'www'), pkg: PKG });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 860 } });
    page.setDefaultTimeout(10_000);
    page.on('console', (m) => seen.console.push(m.text()));
    page.on('pageerror', (e) => seen.errors.push(String(e)));
    page.on('request', (r) => seen.requests.push({ url: r.url(), method: r.method() }));
    await page.goto(server.url + '/');
    // The button is enabled once the wasm client has loaded.
    await page.locator('#submit:enabled').waitFor();
    assert.equal(await page.inputValue('#base-url'), server.url, 'the base URL is pre-filled with the page origin');
    assert.equal(await page.inputValue('#token'), 'demo-token', 'the demo token is pre-filled');
    await page.fill('#token', TOKEN); // startServer's token
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  const result = () => page.locator('#result-body');
  const history = () => page.locator('#history > li');
  /** Waits for the result card with this title. */
  const outcome = (title) => page.locator('#result-body .outcome-title', { hasText: title }).waitFor();

  it('creates a plant with an id beyond 2^53 and shows it, the id kept exact', async () => {
    await page.fill('#plant-id', BIG_ID);
    await page.fill('#plant-name', 'Monstera');
    await page.fill('#plant-tag', 'tropical');
    await page.click('#submit');
    await outcome('Created “Monstera”');
    const shown = await result().innerText();
    assert.match(shown, /tropical/);
    assert.match(shown, new RegExp(BIG_ID));
    const stored = await server.json(`/__test/plants/${BIG_ID}`);
    assert.deepEqual(stored, { id: BIG_ID, name: 'Monstera', tag: 'tropical' });
    assert.equal(await history().count(), 1);
    assert.match(await history().first().innerText(), /Created “Monstera”/);
    assert.match(await history().first().innerText(), /1 attempt: 200/, 'the history shows the attempts');
  });

  it('shows an invalid id next to the field as it is typed, and sends nothing on submit', async () => {
    const before = await server.stats();
    const sentBefore = seen.requests.filter((r) => r.url.endsWith('/plants')).length;
    await page.fill('#plant-id', '');
    await page.locator('#plant-id').pressSequentially('12ab');
    const fieldError = page.locator('#plant-id-error');
    await fieldError.getByText('id must be an integer').waitFor();
    assert.equal(await page.getAttribute('#plant-id', 'aria-invalid'), 'true');
    assert.match(await page.getAttribute('#plant-id', 'aria-describedby'), /plant-id-error/);

    // The button stays usable; submitting (Enter, from the keyboard) shows the issue and sends nothing.
    await page.locator('#plant-id').press('Enter');
    await outcome('Check the highlighted fields');
    assert.match(await result().innerText(), /Nothing was sent/);
    assert.match(await result().innerText(), /id must be an integer/);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'plant-id', 'focus goes to the invalid field');
    assert.match(await history().first().innerText(), /Not sent/);
    assert.deepEqual(await server.stats(), before, 'no request reached the server');
    assert.equal(seen.requests.filter((r) => r.url.endsWith('/plants')).length, sentBefore, 'the page made no request');

    // Fixing the id clears the message.
    await page.fill('#plant-id', '12');
    await page.locator('#plant-id-error:empty').waitFor({ state: 'attached' });
    assert.equal(await page.getAttribute('#plant-id', 'aria-invalid'), null);
  });

  it('shows a duplicate id as the server’s rejection, with status and code', async () => {
    await page.fill('#plant-id', BIG_ID);
    await page.fill('#plant-name', 'Another Monstera');
    await page.locator('#plant-name').press('Enter');
    await outcome('The Plant Store refused this plant');
    const shown = await result().innerText();
    assert.match(shown, new RegExp(`a plant with id ${BIG_ID} already exists`));
    assert.match(shown, /rejected/);
    assert.match(shown, /HTTP status\s+400/);
    assert.match(shown, /Error code\s+3/);
    assert.match(await history().first().innerText(), /Refused/);
    assert.match(await history().first().innerText(), /1 attempt: 400/);
    await page.screenshot({ path: join(ARTIFACTS, 'demo.png'), fullPage: true });
  });

  it('queues plants while working offline, shows each state, and sends each once when back', async () => {
    const queued = () => page.locator('#queue > li');
    await page.locator('#queue-add:enabled').waitFor();
    const before = await server.stats();
    await page.check('#queue-offline');
    for (const [id, name] of [['9001', 'Aloe'], ['9002', 'Basil'], ['9003', 'Cactus']]) {
      await page.fill('#plant-id', id);
      await page.fill('#plant-name', name);
      await page.click('#queue-add');
    }
    await page.locator('#queue > li.pending').nth(2).waitFor();
    assert.equal(await queued().count(), 3);
    assert.match(await queued().first().innerText(), /“Cactus”\s*waiting/);
    assert.equal(await page.locator('#queue-progress-text').innerText(), 'paused: 3 waiting');
    assert.equal(await page.locator('#queue-progress').isVisible(), true, 'the progress bar shows');

    await page.fill('#plant-id', '1.5');
    await page.click('#queue-add');
    await outcome('Check the highlighted fields');
    assert.equal(await queued().count(), 3, 'an invalid plant is not queued');
    await page.fill('#plant-id', '9004');
    await page.screenshot({ path: join(ARTIFACTS, 'demo-queue.png'), fullPage: true });
    assert.deepEqual(await server.stats().then((s) => s.plants - before.plants), 0, 'nothing sent while offline');

    await page.uncheck('#queue-offline');
    await page.locator('#queue > li.created').nth(2).waitFor();
    await page.locator('#queue-progress').waitFor({ state: 'hidden' });
    assert.equal((await server.stats()).plants - before.plants, 3, 'each created once');
    assert.equal((await server.json('/__test/plants/9002')).name, 'Basil');
    assert.match(await queued().first().innerText(), /created[\s\S]*1 attempt/);
    await page.click('#queue-clear');
    await page.locator('#queue-empty').waitFor();
  });

  it('shows a stopped server as a network problem', async () => {
    await server.stop();
    await page.fill('#plant-id', '7');
    await page.fill('#plant-name', 'Fern');
    await page.fill('#plant-tag', '');
    await page.click('#submit');
    await outcome('Could not reach the Plant Store');
    assert.match(await result().innerText(), /network/);
    assert.equal(await history().count(), 4);
    assert.equal(await page.locator('#submit:enabled').count(), 1, 'the button is usable again');

    await page.setViewportSize({ width: 375, height: 812 });
    await page.screenshot({ path: join(ARTIFACTS, 'demo-phone.png'), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal scrolling at 375 px (overflow ${overflow}px)`);
  });

  it('never puts the token in the URL, the page text, the console or a request URL', async () => {
    assert.ok(!page.url().includes(TOKEN));
    assert.ok(!(await page.locator('body').innerText()).includes(TOKEN));
    assert.ok(!seen.console.some((line) => line.includes(TOKEN)), seen.console.join('\n'));
    assert.ok(!seen.requests.some((r) => r.url.includes(TOKEN)));
    assert.deepEqual(seen.errors, [], 'no uncaught errors in the page');
  });
});
