#!/usr/bin/env bash
#===- lint-repo.sh - product text and paths that stay in the repository --===//
#
# Usage: scripts/lint-repo.sh [DIR]
#
# Two checks, each printing `FILE:LINE: CHECK: TEXT` for every hit (one per
# line and check) and a summary; the exit status is 1 when anything is hit.
#
#   process-word  Product text (code, comments, docs, test names, script
#                 messages) speaks of the product, not of how work on it was
#                 organised: no tracker numbers or process vocabulary. The
#                 patterns are PROCESS_WORDS below, matched case-insensitively
#                 by grep -E. Ordinary English that contains one of the words
#                 is reworded too ("Zen 5 sustains one broadcast per cycle"),
#                 since the check is a plain grep. ONNX Runtime's sessions
#                 ("session creation", InferenceSession) stay allowed: only
#                 the work-session forms are listed.
#   outside-path  Nothing refers to files outside the repository: the
#                 literal patterns in OUTSIDE_LITERALS anywhere, and, in
#                 tests (test/, unittests/), scripts (scripts/, .ci/,
#                 benchmarks/), docs (docs/, README.md) and CMake files, every
#                 relative path token (`../x`) that leaves the repository
#                 both when resolved against the folder of the file holding
#                 it and when resolved against the repository root (so a
#                 Markdown link `](../lib/Import)` in docs/ passes). A path
#                 after an anchor (%S/, $here/, $(dirname "$0")/,
#                 ${CMAKE_CURRENT_SOURCE_DIR}/: the file's folder; %strata_src/,
#                 $root/, ${PROJECT_SOURCE_DIR}/, ${CMAKE_SOURCE_DIR}/,
#                 ${STRATA_SOURCE_DIR}/: the root) is resolved against that
#                 anchor only. System paths (/usr/..., /etc/...) are allowed.
#
# Without DIR the files are those git knows in the repository holding this
# script (tracked, plus untracked files that are not ignored). With DIR,
# every file under DIR is scanned and DIR plays the repository root (the
# lint tests run it on small fixture folders). Paths in the output are
# relative to the root. Excluded in both modes: this script (it spells the
# patterns out) and test/lint/Inputs/ (fixtures that violate the checks on
# purpose).
#
#===----------------------------------------------------------------------===//
set -euo pipefail

# Process vocabulary (grep -iE; \b is a word boundary).
PROCESS_WORDS=(
  '\bissues?\b'                 # tracker items: "issue 8's targets", "(issue 3)"
  '\b(issue|pr|pull request|task|ticket)s? *#[0-9]+'  # "PR #12", "task #3"
  '\btrackers?\b'
  '\btickets?\b'
  # A work session, not an ONNX Runtime session ("session creation" and
  # InferenceSession stay allowed).
  '\b(this|that|last|earlier|next|previous|prior|later|future|work|working|coding) sessions?\b'
  '\bsessions? (of )?#?[0-9]'   # "session 4", "a session of 20 minutes"
  '\bclosing notes?\b'
  '\bacceptance\b'
  '\bceo\b'
  '\bsprints?\b'
  '\bmilestones?\b'
)

# Names of places outside the repository (Python regular expressions,
# matched case-sensitively on every line of every scanned file).
OUTSIDE_LITERALS=(
  '\.\./shared'                 # the folder beside a checkout
  '%shared\b'                   # its lit substitution
  '\bSTRATA_SHARED_DIR\b'       # its CMake variable
  '(?<![\w.}/-])/work/'         # the build machine's work area
  # Data under a home directory; tool caches under ~/.cache (ccache) are
  # not data and stay allowed.
  '(\$HOME|\$\{HOME\}|(?<![\w~])~)/(?!\.cache/)'
)

usage() {
  echo "usage: $0 [DIR]" >&2
  exit 2
}
[ $# -le 1 ] || usage

here=$(cd "$(dirname "$0")" && pwd)
self=scripts/lint-repo.sh
if [ $# -eq 1 ]; then
  [ -d "$1" ] || { echo "lint-repo: $1 is not a directory" >&2; exit 2; }
  root=$(cd "$1" && pwd)
else
  root=$(cd "$here/.." && pwd)
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The files to scan, NUL-separated, relative to the root.
if [ $# -eq 1 ]; then
  (cd "$root" && find . -type f ! -path './.git/*' -print0 |
    sed -z 's|^\./||' | sort -z) >"$tmp/all"
else
  if ! git -C "$root" ls-files -z --cached --others --exclude-standard \
      >"$tmp/all" 2>"$tmp/git.err"; then
    echo "lint-repo: git ls-files failed in $root:" >&2
    cat "$tmp/git.err" >&2
    echo "lint-repo: pass a directory to scan it without git" >&2
    exit 2
  fi
fi
: >"$tmp/files"
while IFS= read -r -d '' file; do
  case "$file" in
    "$self" | test/lint/Inputs/*) continue ;;
  esac
  [ -f "$root/$file" ] || continue   # deleted in the working tree
  printf '%s\0' "$file" >>"$tmp/files"
done <"$tmp/all"

# Check a: process vocabulary.
grep_args=()
for pattern in "${PROCESS_WORDS[@]}"; do
  grep_args+=(-e "$pattern")
done
if [ -s "$tmp/files" ]; then
  # grep exits 1 when nothing matches; xargs then exits 123.
  (cd "$root" && xargs -0 grep -nHI -iE "${grep_args[@]}" -- <"$tmp/files" ||
    true) | sed -E 's/^([^:]*):([0-9]+):[[:space:]]*/\1:\2: process-word: /' \
    >"$tmp/words"
else
  : >"$tmp/words"
fi

# Check b: paths outside the repository.
python3 - "$root" "$tmp/files" "${OUTSIDE_LITERALS[@]}" >"$tmp/paths" <<'PY'
import os
import re
import sys

root, listing, literals = sys.argv[1], sys.argv[2], sys.argv[3:]
literals = [re.compile(p) for p in literals]
# Where relative path tokens are checked.
area = re.compile(r"^(test|unittests|scripts|\.ci|benchmarks|docs)/"
                  r"|^README\.md$|(^|/)CMakeLists\.txt$|\.cmake$")
path_chars = r"[^\s'\"`()\[\]<>,;|*{}$]*"
# A bare token starts with `..` that no word, dot, slash, `$`, `}`, `)` or `~`
# precedes, followed by `/` or the end of the token.
bare = re.compile(r"(?<![\w.$/})~%])\.\.(?=/|$|[^\w.])" + path_chars)
file_anchors = ["%S/", "$here/", "${here}/", '$(dirname "$0")/',
                "${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/"]
root_anchors = ["%strata_src/", "$root/", "${root}/", "${PROJECT_SOURCE_DIR}/",
                "${CMAKE_SOURCE_DIR}/", "${STRATA_SOURCE_DIR}/"]
anchored = [(re.compile(re.escape(a) + "(" + path_chars + ")"), a in file_anchors)
            for a in file_anchors + root_anchors]


def escapes(depth, path):
    """Whether `path`, resolved `depth` folders below the root, leaves it."""
    for part in path.split("/"):
        if part in ("", "."):
            continue
        depth += -1 if part == ".." else 1
        if depth < 0:
            return True
    return False


def leaves(line, folder_depth):
    for pattern, from_folder in anchored:
        for match in pattern.finditer(line):
            if escapes(folder_depth if from_folder else 0, match.group(1)):
                return True
    for match in bare.finditer(line):
        token = match.group(0)
        if escapes(folder_depth, token) and escapes(0, token):
            return True
    return False


with open(listing, "rb") as handle:
    files = [f for f in handle.read().decode("utf-8", "replace").split("\0") if f]
for name in files:
    with open(os.path.join(root, name), "rb") as handle:
        data = handle.read()
    if b"\0" in data:
        continue  # binary
    folder = os.path.dirname(name)
    depth = len(folder.split("/")) if folder else 0
    in_area = bool(area.search(name))
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if any(p.search(line) for p in literals) or (in_area and leaves(line, depth)):
            print(f"{name}:{number}: outside-path: {line.strip()}")
PY

cat "$tmp/words" "$tmp/paths"
words=$(wc -l <"$tmp/words")
paths=$(wc -l <"$tmp/paths")
echo "lint-repo: $((words)) process-word hits, $((paths)) outside-path hits"
[ "$words" -eq 0 ] && [ "$paths" -eq 0 ]
