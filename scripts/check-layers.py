#!/usr/bin/env python3
"""Checks the model's layout: no import cycles between its files (following re-exports to the
file that defines an item), and no file importing a layer above its own. The layers, bottom up:
retry/ (the policy) and sim/ (the simulator), in crates/retry-engine; link/ (the link over both)
and request/ (one request step by step), in crates/retry-model, which sees the engine's two as
its own `crate::retry` and `crate::sim` (Cargo itself stops the engine from importing the model).
The web crate (crates/retrylab-web) is checked for cycles between its files too.
With no argument it also checks that no Rust file of the crates, tests included, is over 1,000 lines.
Usage: scripts/check-layers.py [src dir]; with none, checks the three crates; exits 1 on a finding."""
import re,os,sys,subprocess
if len(sys.argv) < 2:
    here=os.path.dirname(os.path.abspath(__file__))
    bad=0
    # The web crate has no layers of its own: it is checked for import cycles between its files.
    for c in ('retry-engine','retry-model','retrylab-web'):
        bad|=subprocess.call([sys.executable, os.path.abspath(__file__), os.path.join(here,'..','crates',c,'src')])
    # And every Rust file of the crates, tests included, stays under 1,000 lines.
    for root,_,fs in os.walk(os.path.join(here,'..','crates')):
        if '/target' in root:
            continue
        for f in fs:
            if f.endswith('.rs'):
                p=os.path.join(root,f)
                n=sum(1 for _ in open(p))
                if n>1000:
                    print(f'{os.path.relpath(p, os.path.join(here, ".."))}: {n} lines, over 1,000')
                    bad=1
    sys.exit(bad)
os.chdir(sys.argv[1])
files={}
for root,_,fs in os.walk('.'):
    for f in fs:
        if f.endswith('.rs'):
            p=os.path.join(root,f)[2:]
            files[p]='\n'.join(l for l in open(p).read().split('#[cfg(test)]')[0].split('\n') if not l.strip().startswith('//'))
def modname(p):
    p=p[:-3]
    if p.endswith('/mod'): p=p[:-4]
    return 'crate' if p=='lib' else p.replace('/','::')
mods={modname(p):p for p in files}
# re-exports: in module M, `pub use sub::{A, B}` or `pub use sub::A` -> item M::A defined in M::sub
reexp={}
for p,s in files.items():
    m=modname(p)
    for mm in re.finditer(r'pub use ([a-z_:]+)::\{([^}]*)\};|pub use ([a-z_:]+)::([A-Za-z_0-9]+)(?: as ([A-Za-z_0-9]+))?;', s, re.S):
        if mm.group(1):
            sub=mm.group(1); items=[x.strip().split(' as ')[-1] for x in mm.group(2).split(',') if x.strip()]
            origs=[x.strip().split(' as ')[0] for x in mm.group(2).split(',') if x.strip()]
        else:
            sub=mm.group(3); items=[mm.group(5) or mm.group(4)]
        sub=sub.replace('crate::','').replace('self::','').replace('super::','')
        target=(m+'::'+sub) if m!='crate' else sub
        if target not in mods:
            target=sub if sub in mods else target
        for it in items:
            reexp[(m,it)]=target
def resolve(path):
    parts=path.split('::')
    # longest module prefix
    for n in range(len(parts),0,-1):
        cand='::'.join(parts[:n])
        if cand in mods:
            rest=parts[n:]
            if rest and (cand,rest[0]) in reexp:
                return reexp[(cand,rest[0])]
            if cand=='crate' and rest and ('crate',rest[0]) in reexp:
                return reexp[('crate',rest[0])]
            return cand
    if ('crate',parts[0]) in reexp: return reexp[('crate',parts[0])]
    return None
deps={}
for p,s in files.items():
    m=modname(p)
    ds=set()
    base=m.rsplit('::',1)[0] if '::' in m else 'crate'
    if p.endswith('mod.rs'): base=m
    for mm in re.finditer(r'\b(crate|super)::([A-Za-z_0-9:]+)', s):
        path=mm.group(2).rstrip(':')
        if mm.group(1)=='super':
            path=(base+'::'+path) if base!='crate' else path
        # braces: crate::x::{A,B}
        r=resolve(path)
        if r: ds.add(r)
    for mm in re.finditer(r'\b(crate|super)::([a-z_:]+)::\{([^}]*)\}', s, re.S):
        pre=mm.group(2)
        if mm.group(1)=='super': pre=(base+'::'+pre) if base!='crate' else pre
        for it in mm.group(3).split(','):
            it=it.strip().split(' as ')[0].split('::')[0]
            if it and it!='self':
                r=resolve(pre+'::'+it)
                if r: ds.add(r)
    ds.discard(m); ds.discard('crate')
    deps[m]=ds
index={};low={};st=[];on=set();sccs=[];i=[0]
sys.setrecursionlimit(10000)
def sc(v):
    index[v]=low[v]=i[0];i[0]+=1;st.append(v);on.add(v)
    for w in deps.get(v,()):
        if w not in deps: continue
        if w not in index: sc(w);low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],index[w])
    if low[v]==index[v]:
        comp=[]
        while True:
            w=st.pop();on.discard(w);comp.append(w)
            if w==v:break
        if len(comp)>1: sccs.append(comp)
for v in deps:
    if v not in index: sc(v)
for c in sccs:
    print('cycle among:', ', '.join(sorted(c)))
    for a in sorted(c):
        print('   ', a, '->', ', '.join(sorted(d for d in deps[a] if d in c)))
LAYERS = ['retry', 'sim', 'link', 'request', 'json']
def layer(m):
    top = m.split('::')[0]
    return LAYERS.index(top) if top in LAYERS else None
upward = []
for a, ds in deps.items():
    for d in ds:
        la, ld = layer(a), layer(d)
        if la is not None and ld is not None and ld > la:
            upward.append((a, d))
for a, d in sorted(upward):
    print(f'{a} ({LAYERS[layer(a)]}) imports {d}, a layer above')
if sccs or upward:
    sys.exit(1)
layered = any(layer(m) is not None for m in deps)
print(f'{len(deps)} files: no import cycles' + (f', no import from a layer above ({" < ".join(LAYERS)})' if layered else ''))
