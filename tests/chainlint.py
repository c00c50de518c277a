#!/usr/bin/env python3
"""tests/chainlint.py - check that test bodies chain their lines with &&.

  python3 tests/chainlint.py [FILE...]   (default: tests/t*.sh tests/slow/t*.sh)

A body runs under set -e (tests/lib-test.sh), but the shell ignores set -e in
an if condition, in any but the last command of an && or || list, and in
everything called from there; so, as in git's t/chainlint.pl, every command
of a test body that is followed by another must be joined to it with && (or
||, or |).  It finds each test_expect_success / test_expect_failure_code call
(with or without its prerequisites first: one more argument),
takes its body (the last argument, after shell quoting), parses it as shell
and reports each break as FILE:LINE.  Accepted without &&:

  - the last command of a list (before fi, done, esac, ;;, ), }, then, do)
  - a command ending in & (a background job)
  - a function definition
  - a command ending in '|| exit N', '|| return N', '|| false' or
    '|| { ...; exit N; }' (it fails explicitly)
  - a command followed by exit, return or false (the failure path:
    { echo x; exit 1; })

A loop body (for, while, until) must end in one of those '||' forms: in
an && chain the loop is not the last command, set -e is off inside it, and an
iteration's failure is lost.  Exit status 1 if anything was found, 2 if a body
cannot be parsed.
"""
import glob
import os
import sys

OPS = ['&&', '||', ';;', '<<-', '<<', '>>', '<&', '>&', '<>', '>|',
       '|', '&', ';', '(', ')', '<', '>']
REDIR = {'>>', '<&', '>&', '<>', '>|', '<', '>', '<<', '<<-'}
META = set(' \t\n;&|()<>')


class ParseError(Exception):
    def __init__(self, line, msg):
        super().__init__(msg)
        self.line = line


class Tok:
    def __init__(self, kind, text, line, quoted=False, raw=''):
        self.kind = kind      # 'word', 'op', 'nl', 'eof'
        self.text = text      # a word's value after quote removal
        self.line = line
        self.quoted = quoted  # any quoting in the word (so not a keyword)
        self.raw = raw

    def is_word(self, *words):
        return self.kind == 'word' and not self.quoted and self.text in words

    def is_op(self, *ops):
        return self.kind == 'op' and self.text in ops


def lex(s, line=1):
    """Tokens of shell text S whose first line is LINE."""
    toks, i, n = [], 0, len(s)
    heredocs = []          # (delimiter, strip tabs) waiting for a newline
    want_delim = None      # the last op was << or <<-

    def skip_nested(j, close):
        """Index after the CLOSE matching an opening just before J."""
        nonlocal line
        depth = 1
        while j < n:
            c = s[j]
            if c == '\\':
                if j + 1 < n and s[j + 1] == '\n':
                    line += 1
                j += 2
                continue
            if c == '\n':
                line += 1
            elif c == "'" and close != '`':
                k = s.find("'", j + 1)
                if k < 0:
                    raise ParseError(line, 'unterminated quote')
                line += s.count('\n', j, k)
                j = k
            elif c == '"' and close != '`':
                j = skip_dq(j + 1) - 1
            elif c == '`' and close != '`':
                j = skip_nested(j + 1, '`') - 1
            elif c == '$' and j + 1 < n and s[j + 1] in '({':
                j = skip_nested(j + 2, ')' if s[j + 1] == '(' else '}') - 1
            elif close == ')' and c == '(':
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        raise ParseError(line, 'unterminated ' + close)

    def skip_dq(j):
        """Index after the " closing a string opened just before J."""
        nonlocal line
        while j < n:
            c = s[j]
            if c == '\\':
                if j + 1 < n and s[j + 1] == '\n':
                    line += 1
                j += 2
                continue
            if c == '\n':
                line += 1
            elif c == '"':
                return j + 1
            elif c == '`':
                j = skip_nested(j + 1, '`')
                continue
            elif c == '$' and j + 1 < n and s[j + 1] in '({':
                j = skip_nested(j + 2, ')' if s[j + 1] == '(' else '}')
                continue
            j += 1
        raise ParseError(line, 'unterminated "')

    def dq_value(body):
        out, j = [], 0
        while j < len(body):
            if body[j] == '\\' and j + 1 < len(body) and body[j + 1] in '$`"\\\n':
                if body[j + 1] != '\n':
                    out.append(body[j + 1])
                j += 2
            else:
                out.append(body[j])
                j += 1
        return ''.join(out)

    while i < n:
        c = s[i]
        if c in ' \t':
            i += 1
        elif c == '\\' and i + 1 < n and s[i + 1] == '\n':
            i += 2
            line += 1
        elif c == '#':
            while i < n and s[i] != '\n':
                i += 1
        elif c == '\n':
            toks.append(Tok('nl', '\n', line))
            i += 1
            line += 1
            for delim, strip in heredocs:
                while True:
                    if i >= n:
                        raise ParseError(line, 'unterminated here-document')
                    k = s.find('\n', i)
                    k = n if k < 0 else k
                    text = s[i:k]
                    i = k + 1
                    line += 1
                    if (text.lstrip('\t') if strip else text) == delim:
                        break
            heredocs = []
        elif any(s.startswith(op, i) for op in OPS):
            op = next(op for op in OPS if s.startswith(op, i))
            toks.append(Tok('op', op, line))
            i += len(op)
            if op in ('<<', '<<-'):
                want_delim = op == '<<-'
        else:
            start, start_line, val, quoted = i, line, [], False
            while i < n and s[i] not in META:
                c = s[i]
                if c == '\\':
                    if i + 1 < n and s[i + 1] == '\n':
                        line += 1
                    else:
                        val.append(s[i + 1:i + 2])
                    quoted = True
                    i += 2
                elif c == "'":
                    k = s.find("'", i + 1)
                    if k < 0:
                        raise ParseError(line, 'unterminated quote')
                    val.append(s[i + 1:k])
                    line += s.count('\n', i, k)
                    quoted = True
                    i = k + 1
                elif c == '"':
                    k = skip_dq(i + 1)
                    val.append(dq_value(s[i + 1:k - 1]))
                    quoted = True
                    i = k
                elif c == '`':
                    k = skip_nested(i + 1, '`')
                    val.append(s[i:k])
                    i = k
                elif c == '$' and i + 1 < n and s[i + 1] in '({':
                    k = skip_nested(i + 2, ')' if s[i + 1] == '(' else '}')
                    val.append(s[i:k])
                    i = k
                else:
                    val.append(c)
                    i += 1
            if s[start:i].isdigit() and i < n and s[i] in '<>':
                continue  # an IO number: part of the redirection after it
            tok = Tok('word', ''.join(val), start_line, quoted, s[start:i])
            toks.append(tok)
            if want_delim is not None:
                heredocs.append((tok.text, want_delim))
                want_delim = None
    toks.append(Tok('eof', '', line))
    return toks


class AndOr:
    """One && / || list: its pipelines' commands and the operators between."""

    def __init__(self, cmds, ops):
        self.cmds, self.ops = cmds, ops  # cmds: last Command of each pipeline

    @property
    def line(self):
        return self.cmds[-1].last_line


class Command:
    def __init__(self, kind, name, first_line, last_line, fails=False):
        self.kind, self.name = kind, name
        self.first_line, self.last_line = first_line, last_line
        self.fails = fails  # exit, return or false, or a { } ending in one


TERMS = ('then', 'else', 'elif', 'fi', 'do', 'done', 'esac', '}')


class Parser:
    def __init__(self, toks, report):
        self.toks, self.i, self.report = toks, 0, report

    def peek(self):
        return self.toks[self.i]

    def next(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def skip_nl(self):
        while self.peek().kind == 'nl':
            self.i += 1

    def expect_word(self, w):
        t = self.next()
        if not t.is_word(w):
            raise ParseError(t.line, "expected '%s', found '%s'" % (w, t.text))
        return t

    def at_end(self, terms):
        t = self.peek()
        return (t.kind == 'eof' or
                (t.kind == 'word' and not t.quoted and t.text in terms) or
                (t.kind == 'op' and t.text in terms))

    def parse_list(self, terms, loop=False):
        items = []
        self.skip_nl()
        while not self.at_end(terms):
            ao = self.parse_andor()
            sep = ''
            t = self.peek()
            if t.is_op(';', '&') or t.kind == 'nl':
                sep = self.next().text
            elif not self.at_end(terms):
                raise ParseError(t.line, "unexpected '%s'" % t.text)
            items.append((ao, sep))
            self.skip_nl()
        self.check_chain(items)
        if loop and items and not explicit_fail(items[-1][0]):
            self.report(items[-1][0].line,
                        "loop body does not end in '|| exit 1' (a failure "
                        "inside a loop in an && chain is lost)")
        return items

    def check_chain(self, items):
        for (a, sep), (b, _) in zip(items, items[1:]):
            if sep == '&' or explicit_fail(a):
                continue
            if a.cmds[-1].kind == 'function':
                continue
            if b.cmds[0].name in FAILS:
                continue
            self.report(a.line, "missing && after '%s'%s" % (
                a.cmds[-1].name, " (a ';')" if sep == ';' else ''))

    def parse_andor(self):
        cmds, ops = [self.parse_pipeline()], []
        while self.peek().is_op('&&', '||'):
            ops.append(self.next().text)
            self.skip_nl()
            cmds.append(self.parse_pipeline())
        return AndOr(cmds, ops)

    def parse_pipeline(self):
        if self.peek().is_word('!'):
            self.next()
        cmd = self.parse_command()
        while self.peek().is_op('|'):
            self.next()
            self.skip_nl()
            cmd = self.parse_command()
        return cmd

    def redirects(self, cmd):
        while self.peek().is_op(*REDIR):
            self.next()
            t = self.next()
            if t.kind != 'word':
                raise ParseError(t.line, 'redirection without a target')
            cmd.last_line = t.line
        return cmd

    def parse_command(self):
        t = self.peek()
        first = t.line
        if t.is_word('if'):
            self.next()
            while True:
                self.parse_list(('then',))
                self.expect_word('then')
                self.parse_list(('elif', 'else', 'fi'))
                t = self.next()
                if t.is_word('elif'):
                    continue
                if t.is_word('else'):
                    self.parse_list(('fi',))
                    t = self.expect_word('fi')
                if not t.is_word('fi'):
                    raise ParseError(t.line, "expected 'fi'")
                break
            return self.redirects(Command('if', 'fi', first, t.line))
        if t.is_word('for'):
            self.next()
            self.next()  # the variable
            if self.peek().is_op(';'):
                self.next()
            self.skip_nl()
            if self.peek().is_word('in'):
                self.next()
                while self.peek().kind == 'word':
                    self.next()
                if self.peek().is_op(';') or self.peek().kind == 'nl':
                    self.next()
            self.skip_nl()
            self.expect_word('do')
            self.parse_list(('done',), loop=True)
            t = self.expect_word('done')
            return self.redirects(Command('for', 'done', first, t.line))
        if t.is_word('while', 'until'):
            self.next()
            self.parse_list(('do',))
            self.expect_word('do')
            self.parse_list(('done',), loop=True)
            t = self.expect_word('done')
            return self.redirects(Command('while', 'done', first, t.line))
        if t.is_word('case'):
            self.next()
            self.next()  # the subject
            self.skip_nl()
            self.expect_word('in')
            self.skip_nl()
            while not self.peek().is_word('esac'):
                if self.peek().is_op('('):
                    self.next()
                while not self.peek().is_op(')'):
                    p = self.next()
                    if p.kind == 'eof':
                        raise ParseError(p.line, 'unterminated case')
                self.next()
                self.parse_list((';;', 'esac'))
                if self.peek().is_op(';;'):
                    self.next()
                self.skip_nl()
            t = self.expect_word('esac')
            return self.redirects(Command('case', 'esac', first, t.line))
        if t.is_op('('):
            self.next()
            self.parse_list((')',))
            t = self.next()
            if not t.is_op(')'):
                raise ParseError(t.line, "expected ')'")
            return self.redirects(Command('subshell', ')', first, t.line))
        if t.is_word('{'):
            self.next()
            items = self.parse_list(('}',))
            t = self.expect_word('}')
            fails = bool(items) and items[-1][0].cmds[-1].fails
            return self.redirects(Command('group', '}', first, t.line, fails))
        # a simple command, or a function definition
        words, last, redirs = [], t.line, 0
        while True:
            t = self.peek()
            if t.kind == 'word':
                words.append(self.next())
                last = t.line
            elif t.is_op(*REDIR):
                self.next()
                w = self.next()
                if w.kind != 'word':
                    raise ParseError(w.line, 'redirection without a target')
                last = w.line
                redirs += 1
            else:
                break
        if not words and not redirs:
            raise ParseError(t.line, "unexpected '%s'" % t.text)
        if (len(words) == 1 and self.peek().is_op('(') and
                self.toks[self.i + 1].is_op(')')):
            self.i += 2
            self.skip_nl()
            body = self.parse_command()
            return Command('function', words[0].text, first, body.last_line)
        name = next((w.text for w in words if '=' not in w.text or w.quoted),
                    words[0].text if words else '')
        return Command('simple', name, first, last, name in FAILS)


FAILS = ('exit', 'return', 'false')


def explicit_fail(ao):
    """AO ends in '|| exit N', '|| return N' or '|| { ...; exit N; }'."""
    return bool(ao.ops) and ao.ops[-1] == '||' and ao.cmds[-1].fails


CALLS = {'test_expect_success': 2, 'test_expect_failure_code': 3}


def lint_file(path, out):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    found = []
    try:
        toks = lex(text)
    except ParseError as e:
        out.append('%s:%d: cannot parse: %s' % (path, e.line, e))
        return 2
    bad = 0
    for k, t in enumerate(toks):
        if t.kind != 'word' or t.quoted or t.text not in CALLS:
            continue
        args = []
        for a in toks[k + 1:]:
            if a.kind != 'word':
                break
            args.append(a)
        if len(args) < CALLS[t.text]:
            continue
        # PREREQS NAME ... BODY: the prerequisites come first
        first = 1 if len(args) > CALLS[t.text] else 0
        body = args[first + CALLS[t.text] - 1]
        name = args[first].text

        def report(line, msg, body=body, name=name):
            found.append((line, "%s:%d: '%s': %s" % (path, line, name, msg)))

        try:
            p = Parser(lex(body.text, body.line), report)
            p.parse_list(())
            if p.peek().kind != 'eof':
                raise ParseError(p.peek().line,
                                 "unexpected '%s'" % p.peek().text)
        except ParseError as e:
            out.append("%s:%d: '%s': cannot parse: %s" % (path, e.line, name, e))
            bad = 2
    for _, msg in sorted(found):
        out.append(msg)
    return bad or (1 if found else 0)


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    files = argv[1:] or sorted(glob.glob(os.path.join(here, 't[0-9]*.sh')) +
                               glob.glob(os.path.join(here, 'slow', 't[0-9]*.sh')))
    ret, out = 0, []
    for f in files:
        ret = max(ret, lint_file(f if argv[1:] else os.path.relpath(f), out))
    for line in out:
        print(line)
    if ret:
        print('chainlint: %d problem(s) in test bodies' % len(out), file=sys.stderr)
    return ret


if __name__ == '__main__':
    sys.exit(main(sys.argv))
