#!/usr/bin/env python3
"""Which daemon/*.c calls which, and that no two call each other in a cycle.

The daemon's modules call only downward (docs/architecture.md, "The
daemon's modules"): a function of one .c file may call functions defined
in another only when that file never calls back into it, directly or
through others. This reads every daemon/*.c, finds the external functions
each defines (tsr__ names with a body) and the ones each calls, and fails
naming the files of any cycle and the calls that make it. With --dot it
prints the graph instead (the picture in the architecture document).

    check_daemon_layers.py SOURCE_DIR [--dot]
"""
import glob
import os
import re
import sys


def strip(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


def graph(root):
    files = sorted(glob.glob(os.path.join(root, 'daemon', '*.c')))
    text = {os.path.basename(f): strip(open(f, encoding='utf-8').read()) for f in files}
    defined = {}
    for name, body in text.items():
        for m in re.finditer(r'^(?!static\b)[A-Za-z_][\w \t*]*?\b(tsr__\w+)\s*\([^;{]*\)\s*\{',
                             body, flags=re.M):
            defined[m.group(1)] = name
    calls = {}
    for name, body in text.items():
        for fn in set(re.findall(r'\b(tsr__\w+)\s*\(', body)):
            where = defined.get(fn)
            if where and where != name:
                calls.setdefault(name, {}).setdefault(where, set()).add(fn)
    return sorted(text), calls


def cycles(nodes, calls):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in calls.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in nodes:
        if v not in index:
            visit(v)
    return found


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    nodes, calls = graph(sys.argv[1])
    if '--dot' in sys.argv[2:]:
        print('digraph daemon {')
        for a in sorted(calls):
            for b in sorted(calls[a]):
                print(f'    "{a}" -> "{b}";')
        print('}')
        return 0
    if not calls:
        print('check_daemon_layers: no calls between daemon/*.c found (wrong directory?)',
              file=sys.stderr)
        return 1
    bad = cycles(nodes, calls)
    if bad:
        for part in bad:
            print('daemon/ files that call each other in a cycle: ' + ', '.join(part))
            for a in part:
                for b in part:
                    if b in calls.get(a, {}):
                        print(f'  {a} -> {b}: ' + ', '.join(sorted(calls[a][b])))
        return 1
    edges = sum(len(v) for v in calls.values())
    print(f'daemon/: {len(nodes)} files, {edges} calls between files, no cycle')
    return 0


if __name__ == '__main__':
    sys.exit(main())
