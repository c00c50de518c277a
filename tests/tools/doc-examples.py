#!/usr/bin/env python3
# doc-examples.py TOP: the vmtax command lines the README and the man pages
# show, one "SOURCE:LINE<TAB>COMMAND" a line (tests/t0192-doc-examples.sh
# runs them): README.md's code spans (across line breaks) and fenced
# lines, the man pages' .nf blocks (man/*.in: roff unescaped, continued
# lines joined, @DATADIR@/ dropped: the configs are the tree's).
# "build/vmtax" is printed as "vmtax".
import os
import re
import sys


def clean(cmd):
    cmd = re.sub(r'\s+', ' ', cmd).strip()
    return re.sub(r'^(build/)?vmtax ', 'vmtax ', cmd)


def readme(top):
    text = open(os.path.join(top, 'README.md')).read()
    # fences out, each line of one kept with its number
    out, prose, fence = [], [], False
    for n, line in enumerate(text.split('\n'), 1):
        if line.startswith('```'):
            fence = not fence
            prose.append('')
            continue
        if fence:
            if re.match(r'(build/)?vmtax ', line):
                out.append((n, clean(line.split('#')[0])))
            prose.append('')
        else:
            prose.append(line)
    body = '\n'.join(prose)
    for m in re.finditer(r'`((?:build/)?vmtax [^`]*)`', body):
        out.append((body.count('\n', 0, m.start()) + 1, clean(m.group(1))))
    return sorted(('README.md', n, c) for n, c in out)


def man(top):
    out = []
    mandir = os.path.join(top, 'man')
    for f in sorted(os.listdir(mandir)):
        if not f.endswith('.in'):
            continue
        nf, cur = False, None
        for n, line in enumerate(open(os.path.join(mandir, f)), 1):
            line = line.rstrip('\n')
            if line.startswith('.nf'):
                nf = True
                continue
            if line.startswith('.fi'):
                nf = False
                continue
            if not nf:
                continue
            t = line.replace('\\-', '-').replace('@DATADIR@/', '')
            more = t.endswith('\\e') or t.endswith('\\\\')
            t = re.sub(r'\s*\\(e|\\)$', '', t)
            if cur is not None:
                cur[2] += ' ' + t
            elif re.match(r'vmtax [a-z]', t):
                cur = ['man/' + f[:-3], n, t]
            if cur is not None and not more:
                out.append((cur[0], cur[1], clean(cur[2])))
                cur = None
    return out


for src, n, cmd in readme(sys.argv[1]) + man(sys.argv[1]):
    print('%s:%d\t%s' % (src, n, cmd))
