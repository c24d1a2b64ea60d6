import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
const PORT=8111, BASE=`http://127.0.0.1:${PORT}`;
const server = spawn('python3', ['-m','http.server',String(PORT),'--bind','127.0.0.1','--directory','/work/main/dist'],{stdio:'ignore'});
await new Promise(r=>setTimeout(r,800));
const browser = await chromium.launch({executablePath:'/usr/bin/chromium',args:['--headless','--no-sandbox','--disable-gpu']});
const [W,H] = (process.env.VP||'1280x900').split('x').map(Number);
for (const l of (process.env.LESSONS||'fit-700ms,deadline-walk,layers-three').split(',')) {
  const ctx = await browser.newContext({viewport:{width:W,height:H}});
  const page = await ctx.newPage();
  await page.goto(BASE+'/?lesson='+l); await page.waitForSelector('body[data-ready="true"]');
  await page.waitForTimeout(800);
  await page.screenshot({path:`/tmp/probe/${l}-${W}-before.png`});
  await page.fill('#lesson-guess','1'); await page.click('#lesson-commit');
  await page.waitForTimeout(2500);
  await page.screenshot({path:`/tmp/probe/${l}-${W}-after.png`});
  console.log(l, await page.evaluate(()=>({y:scrollY, res:document.querySelector('#lesson-result').innerText, rr: JSON.stringify(document.querySelector('#lesson-result').getBoundingClientRect())})));
  await ctx.close();
}
await browser.close(); server.kill();
