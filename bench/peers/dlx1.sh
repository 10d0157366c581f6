#!/usr/bin/env bash
# Build Knuth's DLX1 (exact cover by dancing links, the baseline of TAOCP 7.2.2.1) for bench/polyomino.py.
#
#   bench/peers/dlx1.sh [SNAPSHOT_GIT_DIR]
#
# Sources: programs-orig/dlx1.w and the Stanford GraphBase's gb_flip.w (+ boilerplate.w, which it includes)
# from the public repository shreevatsa/knuth-literate-programs, pinned by SHA-256 below.  They are read from
#   - SNAPSHOT_GIT_DIR (or $DLX1_SNAPSHOT): a clone or bare git dir of that repository (any commit holding
#     the pinned files; $DLX1_REV picks the revision, default HEAD), or else
#   - the network: raw.githubusercontent.com, branch master.
# Needs ctangle (CWEB; Debian/Ubuntu: `apt-get install texlive-binaries`, which provides /usr/bin/ctangle) and a
# C compiler ($CC, default gcc; $CFLAGS, default -O3).  Everything is written to $DLX1_HOME (default
# ~/.cache/puzzlebatch-bench/dlx1), outside the repository: the binary is $DLX1_HOME/dlx1, and BUILD-INFO
# records the sources' hashes and the compiler.  Knuth's sources and the binary are never committed here.
#
# dlx1 reads the DLX text format on stdin and prints on stderr
#   Altogether N solutions, I+M mems, U updates, B bytes, K nodes, ccost C%.
set -euo pipefail

REPO=shreevatsa/knuth-literate-programs
DEST=${DLX1_HOME:-$HOME/.cache/puzzlebatch-bench/dlx1}
SNAP=${1:-${DLX1_SNAPSHOT:-}}
REV=${DLX1_REV:-HEAD}
CC=${CC:-gcc}
CFLAGS=${CFLAGS:--O3}

# path in the repository -> pinned SHA-256
declare -A SRC=(
  [programs-orig/dlx1.w]=a5ca5db64c2efe759bdb134ff257a883283f29178b98d526a3f36f06b1ffb697
  [other_categorize_later/sgb/gb_flip.w]=8e4faad04360d1ca35fad7c6c49281b63d3074f9f329444031f9ab09fd94611d
  [other_categorize_later/sgb/boilerplate.w]=ef08ba0e208b7a3e8eac07f1fa285f4c06a5848d6dcf1d808e7babbfb42156a8
)

die() { echo "dlx1.sh: $*" >&2; exit 1; }

command -v ctangle >/dev/null || die "ctangle not found (CWEB). Debian/Ubuntu: apt-get install texlive-binaries"
command -v "$CC" >/dev/null || die "C compiler $CC not found"

mkdir -p "$DEST"
WORK=$(mktemp -d "$DEST/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

for path in "${!SRC[@]}"; do
  out="$WORK/$(basename "$path")"
  if [[ -n "$SNAP" ]]; then
    git --git-dir="$SNAP" show "$REV:$path" > "$out" 2>/dev/null \
      || git -C "$SNAP" show "$REV:$path" > "$out" \
      || die "$path not in $SNAP at $REV"
  else
    curl -fsSL --max-time 60 "https://raw.githubusercontent.com/$REPO/master/$path" -o "$out" \
      || die "cannot download $path (no network? pass a snapshot git dir of $REPO)"
  fi
  got=$(sha256sum "$out" | cut -d' ' -f1)
  [[ "$got" == "${SRC[$path]}" ]] || die "$path: SHA-256 $got, pinned ${SRC[$path]} (another version; update the pin on purpose)"
done

cd "$WORK"
# kpathsea-based ctangle (TeX Live) finds @i files only through CWEBINPUTS
export CWEBINPUTS=.
ctangle gb_flip.w >/dev/null   # gb_flip.c, gb_flip.h (dlx1 uses gb_flip only with its `s` option)
ctangle dlx1.w >/dev/null      # dlx1.c
# -w: Knuth's C is K&R-flavoured (main without a return type); the compiler warns, nothing is wrong
$CC $CFLAGS -w -o dlx1 dlx1.c gb_flip.c

# self-test: the example of dlx1.w (Knuth's paper, matrix (3)): one solution
printf '| A simple example\nA B C D E | F G\nC E F\nA D G\nB C F\nA D\nB G\nD E G\n' | ./dlx1 2> selftest.txt >/dev/null
grep -q '^Altogether 1 solution,' selftest.txt || die "self-test failed: $(cat selftest.txt)"

mv -f dlx1 "$DEST/dlx1"
cp -f dlx1.w dlx1.c "$DEST/"
{
  echo "dlx1 built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  if [[ -n "$SNAP" ]]; then
    echo "source: $REPO, snapshot at $(git --git-dir="$SNAP" rev-parse "$REV" 2>/dev/null || git -C "$SNAP" rev-parse "$REV")"
  else
    echo "source: $REPO, branch master via the network"
  fi
  for path in "${!SRC[@]}"; do echo "sha256 ${SRC[$path]}  $path"; done
  echo "ctangle: $(ctangle --version 2>&1 | head -1)"
  echo "compiler: $CC $CFLAGS -w; $($CC --version | head -1)"
} > "$DEST/BUILD-INFO"
echo "$DEST/dlx1"
