import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
const PORT=8111, BASE=`http://127.0.0.1:${PORT}`;
const server = spawn('python3', ['-m','http.server',String(PORT),'--bind','127.0.0.1','--directory','/work/main/dist'],{stdio:'ignore'});
await new Promise(r=>setTimeout(r,800));
const browser = await chromium.launch({executablePath:'/usr/bin/chromium',args:['--headless','--no-sandbox','--disable-gpu']});
for (const [w,h] of [[1350,940],[412,823]])
for (const q of (process.env.QS||'/,?lesson=course-project,?lesson=course-project&guess=195,?v=1&preset=payments-none&b.preset=payments-jitter').split(',')) {
  const ctx = await browser.newContext({viewport:{width:w,height:h}});
  const page = await ctx.newPage();
  await page.addInitScript(()=>{ window.__shifts=[]; new PerformanceObserver(l=>{for(const e of l.getEntries()) if(!e.hadRecentInput) window.__shifts.push({v:e.value,t:e.startTime,src:(e.sources||[]).map(s=>s.node?(s.node.id||s.node.className||s.node.nodeName):'?').join(',')});}).observe({type:'layout-shift',buffered:true}); });
  await page.goto(BASE+'/'+(q==='/'?'':q)); await page.waitForSelector('body[data-ready="true"]');
  try { await page.waitForSelector('#scenario-view[data-done="true"]',{timeout:20000}); } catch {}
  await page.waitForTimeout(1000);
  const s = await page.evaluate(()=>window.__shifts);
  const cls = s.reduce((a,b)=>a+b.v,0);
  console.log(w, q, cls.toFixed(3), JSON.stringify(s.filter(x=>x.v>0.01).map(x=>[x.v.toFixed(3),Math.round(x.t),x.src])));
  await ctx.close();
}
await browser.close(); server.kill();
