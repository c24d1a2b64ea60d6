// Browser measurement of a phase plot (not a test): the wall time from opening `?preset=phase-spike`
// (400 runs, a 20 x 20 heatmap) to the drawn heatmap in the page's workers, beside native
// `retrylab sweep 'preset=phase-spike'` (target/release/retrylab, when built), and the longest
// main-thread task while it ran.
// LINK=... measures another link the same way (a `tune=on` link against `retrylab tune`).
// Usage: node scripts/bench-phase.mjs   (after `trunk build --release`; serves dist/, or $DIST)
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PORT = 8099;
const BASE = `http://127.0.0.1:${PORT}`;
const DIST = process.env.DIST || 'dist';
const LINK = process.env.LINK || 'preset=phase-spike';
const server = spawn('python3', ['-m', 'http.server', String(PORT), '--bind', '127.0.0.1', '--directory', DIST], { stdio: 'ignore' });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  for (let i = 0; i < 100; i++) { try { if ((await fetch(BASE + '/')).ok) break; } catch {} await new Promise(r => setTimeout(r, 100)); }
  for (let round = 0; round < 3; round++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    await context.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
        .observe({ type: 'longtask', buffered: true });
    });
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(`${BASE}/?${LINK}`);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    const ms = Date.now() - t0;
    const chart = page.locator('#sweep-chart-0');
    const drawn = (await chart.count()) ? `${await chart.getAttribute('data-cells')} cells` : 'the view';
    const longest = await page.evaluate(() => Math.max(0, ...window.__longTasks));
    console.log(`${LINK}: ${drawn} drawn ${ms} ms after navigation began; longest main-thread task ${longest.toFixed(0)} ms`);
    await context.close();
  }
  const cli = 'target/release/retrylab';
  if (existsSync(cli)) {
    for (let round = 0; round < 3; round++) {
      const t = Date.now();
      const verb = /(^|&)tune=on/.test(LINK) ? 'tune' : 'sweep';
      execFileSync(cli, [verb, LINK], { stdio: 'ignore' });
      console.log(`native retrylab ${verb} '${LINK}': ${Date.now() - t} ms`);
    }
  }
} finally {
  await browser.close();
  server.kill();
}
