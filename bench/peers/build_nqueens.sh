#!/usr/bin/env bash
# Build the C bitboard N-queens counter (bench/peers/nqueens.c) for bench/nqueens.py.
#
#   bench/peers/build_nqueens.sh
#
# Like bench/peers/dlx1.sh, the binary goes outside the repository: $NQUEENS_HOME (default
# ~/.cache/puzzlebatch-bench/nqueens)/nqueens, with BUILD-INFO (the source's hash and the compiler).
# $CC (default cc) and $CFLAGS (default -O3 -march=native); OpenMP (-fopenmp) when the compiler has it, else a
# one-thread build (-t is then ignored: the bench reports it).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$HERE/nqueens.c
DEST=${NQUEENS_HOME:-$HOME/.cache/puzzlebatch-bench/nqueens}
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O3 -march=native}

die() { echo "build_nqueens.sh: $*" >&2; exit 1; }
command -v "$CC" >/dev/null || die "C compiler $CC not found"

mkdir -p "$DEST"
WORK=$(mktemp -d "$DEST/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

OMP=-fopenmp
echo 'int main(void){return 0;}' > "$WORK/t.c"
$CC $OMP "$WORK/t.c" -o "$WORK/t" 2>/dev/null || OMP=""
# shellcheck disable=SC2086
$CC $CFLAGS $OMP -Wall -o "$WORK/nqueens" "$SRC"

# self-test: Q(8) = 92, Q(10) = 724 (OEIS A000170), on one and two threads
for t in 1 2; do
  [[ "$("$WORK/nqueens" 8 -t $t | cut -d' ' -f2)" == 92 ]] || die "self-test failed: Q(8) with -t $t"
  [[ "$("$WORK/nqueens" 10 -t $t | cut -d' ' -f2)" == 724 ]] || die "self-test failed: Q(10) with -t $t"
done

mv -f "$WORK/nqueens" "$DEST/nqueens"
{
  echo "nqueens built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "sha256 $(sha256sum "$SRC" | cut -d' ' -f1)  bench/peers/nqueens.c"
  echo "compiler: $CC $CFLAGS $OMP; $($CC --version | head -1)"
} > "$DEST/BUILD-INFO"
echo "$DEST/nqueens"
