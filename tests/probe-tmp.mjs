import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
const PORT=8111, BASE=`http://127.0.0.1:${PORT}`;
const server = spawn('python3', ['-m','http.server',String(PORT),'--bind','127.0.0.1','--directory','/work/main/dist'],{stdio:'ignore'});
await new Promise(r=>setTimeout(r,800));
const browser = await chromium.launch({executablePath:'/usr/bin/chromium',args:['--headless','--no-sandbox','--disable-gpu']});
const ctx = await browser.newContext({viewport:{width:390,height:844}});
const page = await ctx.newPage();
await page.goto(BASE+'/?lesson=course-project&guess=195'); await page.waitForSelector('#scenario-view[data-done="true"]',{timeout:60000});
for (const id of ['compare-section','steps-box','compare-changes','course-note']) {
  const el = page.locator('#'+id); if (await el.isVisible()) await el.screenshot({path:`/tmp/probe/phone-${id}.png`});
}
console.log(await page.evaluate(()=>{
  const out=[]; for (const e of document.querySelectorAll('#compare-section *')) { const r=e.getBoundingClientRect(); if (r.right>innerWidth+1 && e.children.length===0) out.push(e.tagName+':'+e.textContent.slice(0,30)+':'+Math.round(r.right)); } return out.slice(0,20);
}));
await browser.close(); server.kill();
