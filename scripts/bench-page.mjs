// Browser measurement of the page (not a test): time to the first chart, and the time from a
// control change to the redrawn scenario view on payments-jitter and payments-none (p50, p95).
// Usage: node scripts/bench-page.mjs   (after `trunk build --release`; serves dist/)
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';

const PORT = 8098;
const BASE = `http://127.0.0.1:${PORT}`;
const server = spawn('python3', ['-m', 'http.server', String(PORT), '--bind', '127.0.0.1', '--directory', 'dist'], { stdio: 'ignore' });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
try {
  for (let i = 0; i < 100; i++) { try { if ((await fetch(BASE + '/')).ok) break; } catch {} await new Promise(r => setTimeout(r, 100)); }
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
  const t0 = Date.now();
  await page.goto(BASE + '/');
  await page.waitForSelector('body[data-ready="true"]');
  console.log(`first chart (schedule, default link): ${Date.now() - t0} ms after navigation`);
  for (const [preset, n] of [['payments-jitter', 20], ['payments-none', 10]]) {
    const t1 = Date.now();
    await page.goto(`${BASE}/?v=1&preset=${preset}`);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 60000 });
    console.log(`${preset}: first result ${Date.now() - t1} ms after navigation`);
    const times = [];
    for (let i = 0; i < n; i++) {
      const ms = await page.evaluate(async seed => {
        const el = document.getElementById('seed');
        const view = document.getElementById('scenario-view');
        const t = performance.now();
        el.value = String(seed);
        el.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise(resolve => {
          const check = () => (view.dataset.done === 'true' && view.dataset.stale === 'false') ? resolve() : requestAnimationFrame(check);
          requestAnimationFrame(check);
        });
        return performance.now() - t;
      }, 100 + i);
      times.push(ms);
    }
    console.log(`${preset}: control change to redrawn view, p50 ${pct(times, 0.5).toFixed(0)} ms, p95 ${pct(times, 0.95).toFixed(0)} ms (${n} changes of seed)`);
  }
} finally {
  await browser.close();
  server.kill();
}
