#!/usr/bin/env python3
"""Checks the code's layout, for every crate under crates/:

- no import cycle between files: a file depends on another when it names one of its items
  (through `crate::`, `super::`, `self::` or a child module's own name, following re-exports to
  the file that defines the item). A module's use of its own submodules is structure, not a
  dependency; so two sibling files that call each other are a cycle (say, a dispatcher and the
  exporters that use its helpers), and so is a submodule that uses a file which uses it;
- in the core, no file imports a layer above its own. The layers, bottom up: retry/ (the policy)
  and sim/ (the simulator), in crates/retry-engine; link/ (the link over both) and request/ (one
  request step by step), in crates/retry-model, which sees the engine's two as its own
  `crate::retry` and `crate::sim` (Cargo itself stops the engine from importing the model);
- no two types (struct, enum, type alias, trait) of the workspace share a name;
- `target_arch` is named in the core only in its one arch-specific module (retry-engine's
  `arch.rs` and the files under `arch/`);
- the page's glue reaches its panels only through the registry: in crates/retrylab-web, no file
  but `views.rs` (the registry) and the panels' own, under `panels/`, names `crate::panels::`;
- no function outside the tests is over 90 lines (the house style says about 80);
- no Rust file of the crates, tests included, is over 1,000 lines.

Usage: scripts/check-layers.py [src dir]; with a directory, checks only that tree's cycles and
layers. Exits 1 on a finding, naming it."""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..')
LAYERS = ['retry', 'sim', 'link', 'request', 'json']
CORE = ('retry-engine', 'retry-model')


def code(text):
    """A file's text before its tests, without line comments."""
    text = text.split('#[cfg(test)]')[0]
    return '\n'.join(l for l in text.split('\n') if not l.strip().startswith('//'))


def modname(p):
    p = p[:-3]
    if p.endswith('/mod'):
        p = p[:-4]
    return 'crate' if p in ('lib', 'main') else p.replace('/', '::')


def read_tree(src):
    files = {}
    for root, _, fs in os.walk(src):
        for f in fs:
            if f.endswith('.rs'):
                p = os.path.relpath(os.path.join(root, f), src)
                files[p] = code(open(os.path.join(root, f), encoding='utf-8').read())
    return files


def reexports(files, mods):
    """(module, item) -> the module whose file defines item, for `pub use` lines."""
    out = {}
    pat = r'pub(?:\([a-z]+\))? use ([a-z_0-9:]+)::\{([^}]*)\};|pub(?:\([a-z]+\))? use ([a-z_0-9:]+)::([A-Za-z_0-9]+)(?: as ([A-Za-z_0-9]+))?;'
    for p, s in files.items():
        m = modname(p)
        for mm in re.finditer(pat, s, re.S):
            if mm.group(1):
                sub = mm.group(1)
                items = [x.strip().split(' as ')[-1] for x in mm.group(2).split(',') if x.strip()]
            else:
                sub, items = mm.group(3), [mm.group(5) or mm.group(4)]
            sub = sub.replace('crate::', '').replace('self::', '').replace('super::', '')
            target = (m + '::' + sub) if m != 'crate' else sub
            if target not in mods:
                target = sub if sub in mods else target
            for it in items:
                out[(m, it)] = target
    return out


def dependencies(files):
    mods = {modname(p): p for p in files}
    reexp = reexports(files, mods)

    def resolve(path):
        parts = path.split('::')
        for n in range(len(parts), 0, -1):
            cand = '::'.join(parts[:n])
            if cand in mods:
                rest = parts[n:]
                if rest and (cand, rest[0]) in reexp:
                    return reexp[(cand, rest[0])]
                return cand
        if ('crate', parts[0]) in reexp:
            return reexp[('crate', parts[0])]
        return None

    deps = {}
    for p, s in files.items():
        m = modname(p)
        here = m if (p.endswith('mod.rs') or m == 'crate') else m
        parent = m.rsplit('::', 1)[0] if '::' in m else 'crate'
        if p.endswith('mod.rs'):
            parent = m.rsplit('::', 1)[0] if '::' in m else 'crate'

        def absolute(kind, path):
            if kind == 'crate':
                return path
            if kind == 'super':
                return path if parent == 'crate' else parent + '::' + path
            # self:: or a child module's own name
            return path if here == 'crate' else here + '::' + path

        children = set(re.findall(r'^(?:pub(?:\([a-z]+\))? )?mod ([a-z_0-9]+);', s, re.M))
        ds = set()
        heads = r'crate|super|self' + ''.join('|' + re.escape(c) for c in children)
        for mm in re.finditer(r'(?<![A-Za-z_0-9:])(' + heads + r')::([A-Za-z_0-9:]*[A-Za-z_0-9])', s):
            kind, path = mm.group(1), mm.group(2)
            if kind in children:
                kind, path = 'self', kind + '::' + path
            r = resolve(absolute(kind, path))
            if r:
                ds.add(r)
        for mm in re.finditer(r'(?<![A-Za-z_0-9:])(' + heads + r')::([a-z_0-9:]*?)::?\{([^}]*)\}', s, re.S):
            kind, pre = mm.group(1), mm.group(2)
            if kind in children:
                kind, pre = 'self', kind + ('::' + pre if pre else '')
            for it in mm.group(3).split(','):
                it = it.strip().split(' as ')[0].split('::')[0]
                if it and it != 'self':
                    r = resolve(absolute(kind, (pre + '::' if pre else '') + it))
                    if r:
                        ds.add(r)
        # A module's use of its own submodules is its structure, not a dependency: only a
        # submodule's use of its ancestors, or of any other file, can close a cycle.
        ds = {d for d in ds if not d.startswith(m + '::')}
        ds.discard(m)
        ds.discard('crate')
        deps[m] = ds
    return deps


def cycles(deps):
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in deps.get(v, ()):
            if w not in deps:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    for v in deps:
        if v not in index:
            visit(v)
    return found


def check_tree(src, name):
    deps = dependencies(read_tree(src))
    bad = False
    for c in cycles(deps):
        bad = True
        print(f'{name}: cycle among:', ', '.join(sorted(c)))
        for a in sorted(c):
            print('   ', a, '->', ', '.join(sorted(d for d in deps[a] if d in c)))
    layered = name in CORE

    def layer(m):
        top = m.split('::')[0]
        return LAYERS.index(top) if layered and top in LAYERS else None

    for a, ds in sorted(deps.items()):
        for d in sorted(ds):
            la, ld = layer(a), layer(d)
            if la is not None and ld is not None and ld > la:
                print(f'{name}: {a} ({LAYERS[la]}) imports {d}, a layer above')
                bad = True
    if not bad:
        extra = f', no import from a layer above ({" < ".join(LAYERS)})' if layered else ''
        print(f'{name}: {len(deps)} files: no import cycles{extra}')
    return bad


MAX_FN = 90


def long_functions(text):
    """(name, lines) of each function over MAX_FN lines, braces in strings and chars ignored."""
    plain = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    plain = re.sub(r"'(?:\\.|[^'\\])'", "' '", plain)
    lines = code(plain).split('\n')
    found = []
    for i, line in enumerate(lines):
        m = re.match(r'\s*(?:pub(?:\([a-z]+\))? )?(?:const )?fn (\w+)', line)
        if not m:
            continue
        depth, started = 0, False
        for j in range(i, len(lines)):
            depth += lines[j].count('{') - lines[j].count('}')
            started = started or '{' in lines[j]
            if not started and lines[j].rstrip().endswith(';'):
                break
            if started and depth <= 0:
                if j - i + 1 > MAX_FN:
                    found.append((m.group(1), j - i + 1))
                break
    return found


def workspace_checks():
    bad = False
    types = {}
    for crate in sorted(os.listdir(os.path.join(ROOT, 'crates'))):
        base = os.path.join(ROOT, 'crates', crate)
        for root, _, fs in os.walk(base):
            if '/target' in root:
                continue
            for f in sorted(fs):
                if not f.endswith('.rs'):
                    continue
                p = os.path.join(root, f)
                rel = os.path.relpath(p, ROOT)
                text = open(p, encoding='utf-8').read()
                n = text.count('\n')
                if n > 1000:
                    print(f'{rel}: {n} lines, over 1,000')
                    bad = True
                inner = os.path.relpath(p, os.path.join(base, 'src'))
                glue = crate == 'retrylab-web' and not inner.startswith('..')
                if glue and inner != 'views.rs' and not inner.startswith('panels/') and 'crate::panels::' in code(text):
                    print(f'{rel}: reaches into a panel (crate::panels::) past the registry in views.rs')
                    bad = True
                arch = inner == 'arch.rs' or inner.startswith('arch/')
                if crate in CORE and 'target_arch' in code(text) and not arch:
                    print(f'{rel}: names target_arch outside the arch module (crates/retry-engine/src/arch.rs)')
                    bad = True
                if not (inner.startswith('..') or f == 'tests.rs' or '/tests/' in p):
                    for name, n in long_functions(text):
                        print(f'{rel}: fn {name} is {n} lines, over {MAX_FN}')
                        bad = True
                for t in re.findall(r'^(?:pub(?:\([a-z]+\))? )?(?:struct|enum|type|trait) ([A-Z][A-Za-z0-9]*)', text, re.M):
                    types.setdefault(t, []).append(rel)
    for t, where in sorted(types.items()):
        if len(set(where)) > 1:
            print(f'type {t} is defined in {len(set(where))} files: {", ".join(sorted(set(where)))}')
            bad = True
    return bad


def main():
    if len(sys.argv) >= 2:
        src = sys.argv[1]
        sys.exit(1 if check_tree(src, os.path.basename(os.path.dirname(os.path.abspath(src)))) else 0)
    bad = False
    for crate in sorted(os.listdir(os.path.join(ROOT, 'crates'))):
        src = os.path.join(ROOT, 'crates', crate, 'src')
        if os.path.isdir(src):
            bad |= check_tree(src, crate)
    bad |= workspace_checks()
    sys.exit(1 if bad else 0)


main()
