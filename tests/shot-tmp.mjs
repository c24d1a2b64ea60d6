import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
const PORT = 8098, BASE = `http://127.0.0.1:${PORT}`;
const server = spawn('python3', ['-m', 'http.server', String(PORT), '--bind', '127.0.0.1', '--directory', 'dist'], { stdio: 'ignore' });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const LINK = process.env.LINK;
try {
  for (let i = 0; i < 100; i++) { try { if ((await fetch(BASE + '/')).ok) break; } catch {} await new Promise(r => setTimeout(r, 100)); }
  for (const [name, vp] of [['laptop', { width: 1440, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
    const context = await browser.newContext({ viewport: vp, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(`${BASE}/?${LINK}`);
    await page.waitForSelector('#scenario-view[data-done="true"]', { timeout: 120000 });
    console.log(name, Date.now() - t0, 'ms');
    const text = await page.locator('#scenario-view').innerText();
    console.log(text.split("\n").filter(l => /engine|steps|population/i.test(l)).join("\n"));
    await page.screenshot({ path: `tests/artifacts/${process.env.NAME}-${name}.png`, fullPage: false });
    await context.close();
  }
} finally { await browser.close(); server.kill(); }
