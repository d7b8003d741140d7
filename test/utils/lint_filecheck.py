#!/usr/bin/env python3
"""Lint for FileCheck tests: finds the two silent defects seen in StableHLO.

1. A check directive without its colon (`// CHECK foo`, `// CHECK-NEXT foo`):
   FileCheck ignores the line, so the test checks less than it says.
2. A file with check lines that no RUN line pipes into FileCheck: nothing
   reads them at all.

Usage: lint_filecheck.py PATH...   (files or folders; `Inputs` folders are
skipped). Exits 1 and lists every finding when there is one.
"""
import os
import re
import sys

SUFFIXES = (".mlir", ".test", ".td", ".ll")
RUN_RE = re.compile(r"^\s*(?://|#|;)\s*RUN:(.*)$")
PREFIX_FLAG_RE = re.compile(r"--?check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)")
DIRECTIVE_SUFFIXES = r"(?:-NEXT|-SAME|-NOT|-DAG|-LABEL|-EMPTY|-COUNT-\d+)?"


def lint_file(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().splitlines()
    run_lines = [m.group(1) for m in map(RUN_RE.match, lines) if m]
    prefixes = {"CHECK"}
    for run in run_lines:
        for flag in PREFIX_FLAG_RE.findall(run):
            prefixes.update(p for p in flag.split(",") if p)
    alternatives = "|".join(sorted(map(re.escape, prefixes)))
    directive = re.compile(
        r"^\s*(?://|#|;)\s*(?:" + alternatives + ")" + DIRECTIVE_SUFFIXES +
        r"(?P<colon>:?)(?:\s|$)")
    findings = []
    has_checks = False
    for number, line in enumerate(lines, 1):
        match = directive.match(line)
        if not match:
            continue
        has_checks = True
        if not match.group("colon"):
            findings.append(f"{path}:{number}: check directive without a "
                            f"colon is ignored by FileCheck: {line.strip()}")
    if has_checks and not any("FileCheck" in run for run in run_lines):
        findings.append(f"{path}: has check lines but no RUN line feeds "
                        f"FileCheck")
    return findings


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    findings = []
    count = 0
    for root in argv[1:]:
        if os.path.isfile(root):
            findings += lint_file(root)
            count += 1
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "Inputs")
            for name in sorted(files):
                if name.endswith(SUFFIXES):
                    findings += lint_file(os.path.join(folder, name))
                    count += 1
    for finding in findings:
        print(finding)
    print(f"lint_filecheck: {count} files, {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
