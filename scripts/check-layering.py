#!/usr/bin/env python3
"""Checks the include layering of src/ and apps/ against the table in docs/architecture.md.

A file in a folder may include its own folder's headers, the folders its row of the table names,
include/a3s/power/error.h, engine.h and settings.h; the verifier's public headers (a3s/power/verify*.h) only
from verify/ and apps/a3s-power-verify/; the embedded runtime's (a3s/power/embedded.h) only from embedded/.
No code constructs an error with a literal code string (Error("..."), ApiError("..."), FieldError("...")):
codes are the named constants of error.h.

Usage: check-layering.py [ROOT]   (ROOT defaults to the repository). Exit 0 clean, 1 violations, 2 the
table cannot be read. Each violation is one line: path:line: what is wrong.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
PUBLIC_ANY = {'a3s/power/error.h', 'a3s/power/engine.h', 'a3s/power/settings.h'}
PUBLIC_VERIFY = re.compile(r'^a3s/power/verify[a-z_]*\.h$')
VERIFY_FOLDERS = {'verify', 'apps/a3s-power-verify'}
PUBLIC_EMBEDDED = 'a3s/power/embedded.h'
EMBEDDED_FOLDERS = {'embedded'}


def read_table():
    path = os.path.join(ROOT, 'docs', 'architecture.md')
    try:
        text = open(path, encoding='utf-8').read()
    except OSError as e:
        print('check-layering: cannot read %s: %s' % (path, e.strerror), file=sys.stderr)
        sys.exit(2)
    table = {}
    for line in text.splitlines():
        m = re.match(r'^\|\s*`([a-z0-9_/-]+)`\s*\|(.*)\|\s*$', line)
        if not m:
            continue
        folder, allowed = m.group(1), m.group(2).strip()
        if allowed.startswith('every folder of src/ except'):
            table[folder] = ('except', set(re.findall(r'`([a-z0-9_/-]+)`', allowed)))
        else:
            table[folder] = ('only', set(re.findall(r'`([a-z0-9_/-]+)`', allowed)))
    if 'base' not in table or 'server' not in table:
        print('check-layering: no layer table in %s' % path, file=sys.stderr)
        sys.exit(2)
    return table


def folder_of(rel):
    parts = rel.split('/')
    if parts[0] == 'apps':
        return 'apps/' + parts[1]
    if parts[0] == 'src':
        if parts[1] == 'model' and len(parts) > 3 and parts[2] == 'gguf':
            return 'model/gguf'
        return parts[1]
    return None


def included_folder(inc):
    if inc.startswith('a3s-power-verify/'):
        return 'apps/a3s-power-verify'
    if inc.startswith('a3s-power/'):
        return 'apps/a3s-power'
    if inc.startswith('model/gguf/'):
        return 'model/gguf'
    return inc.split('/')[0] if '/' in inc else None


def main():
    table = read_table()
    src_folders = {f for f in table if not f.startswith('apps/')}
    violations = []
    literal = re.compile(r'\b(Error|ApiError|FieldError)\s*[({]\s*"')
    for top in ('src', 'apps'):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for name in sorted(files):
                if not name.endswith(('.h', '.cpp', '.in')):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, ROOT)
                folder = folder_of(rel)
                if folder is None:
                    continue
                if folder not in table:
                    violations.append('%s:1: folder %s has no row in docs/architecture.md' % (rel, folder))
                    continue
                kind, allowed = table[folder]
                for lineno, line in enumerate(open(path, encoding='utf-8', errors='replace'), 1):
                    if literal.search(line) and not line.lstrip().startswith('//'):
                        violations.append('%s:%d: an error with a literal code string; use codes::k...' %
                                          (rel, lineno))
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    inc = m.group(1)
                    if inc in PUBLIC_ANY:
                        continue
                    if inc == PUBLIC_EMBEDDED:
                        if folder not in EMBEDDED_FOLDERS:
                            violations.append('%s:%d: %s includes the embedded runtime header %s' %
                                              (rel, lineno, folder, inc))
                        continue
                    if PUBLIC_VERIFY.match(inc):
                        if folder not in VERIFY_FOLDERS:
                            violations.append('%s:%d: %s includes the verifier header %s' % (rel, lineno, folder, inc))
                        continue
                    target = included_folder(inc)
                    if target is None or target == folder:
                        continue
                    if kind == 'only':
                        ok = target in allowed
                    else:
                        ok = target not in allowed and (target in src_folders)
                    if not ok:
                        violations.append('%s:%d: %s may not include %s ("%s")' % (rel, lineno, folder, target, inc))
    for v in violations:
        print(v)
    if violations:
        print('check-layering: %d violation(s); the allowed includes are in docs/architecture.md' % len(violations),
              file=sys.stderr)
        return 1
    print('check-layering: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
