#!/usr/bin/env bash
# Build the Rust bitboard pentomino solver of tyfkda/PentominoSolver (its "naive" depth-first search) for
# bench/polyomino.py, with its command line replaced by a crate-free `main`.
#
#   bench/peers/build_pentomino_solver.sh [SNAPSHOT_GIT_DIR]
#
# Sources: rust/src/pentomino/{mod,piece,shape}.rs and rust/src/pentomino/solver/{mod,naive_solver}.rs from the
# public repository tyfkda/PentominoSolver, pinned by SHA-256 below.  They are read from
#   - SNAPSHOT_GIT_DIR (or $PENTOMINO_SNAPSHOT): a clone or bare git dir of that repository (any commit holding
#     the pinned files; $PENTOMINO_REV picks the revision, default HEAD), or else
#   - the network: a shallow `git clone` of https://github.com/tyfkda/PentominoSolver.
# The upstream main.rs needs crates (clap, atty, colored, dancing-links) that cannot always be downloaded; it is
# not used.  The solver module is kept as is except that solver/mod.rs loses its dancing-links solver (two
# lines), and a new main.rs below drives NaiveSolver without crates and prints one line:
#   solutions=N checks=C seconds=S
# (S: the solver's own time, board and piece set-up excluded, as upstream measures it).
# Everything is written to $PENTOMINO_HOME (default ~/.cache/puzzlebatch-bench/pentomino-solver), outside the
# repository: the binary is $PENTOMINO_HOME/pentomino-solver, and BUILD-INFO records the sources' hashes and
# the compiler.  Needs cargo and rustc (any recent stable; no crates are fetched).
#
#   pentomino-solver 6x10|5x12|4x15|3x20|8x8   (8x8: the 8x8 board minus its 2x2 centre)
set -euo pipefail

REPO=tyfkda/PentominoSolver
DEST=${PENTOMINO_HOME:-$HOME/.cache/puzzlebatch-bench/pentomino-solver}
SNAP=${1:-${PENTOMINO_SNAPSHOT:-}}
REV=${PENTOMINO_REV:-HEAD}

# path in the repository -> pinned SHA-256 (commit bbbb1b7ad8d1e5cbf9e0930f1ec54200747039dd, 2024-12-23)
declare -A SRC=(
  [rust/src/pentomino/mod.rs]=d9a58f0de2ac760795aa326988725c7e97ed26d4feac8c0eacae7efc8f4ba849
  [rust/src/pentomino/piece.rs]=e69a7865e1bcbf7fd5a03611eec1244693b88b648e402ac73b76ba34836b91a1
  [rust/src/pentomino/shape.rs]=119f6565bed3be3f418b1486a38373d00423238ba2df5cc001554d8f3194ce18
  [rust/src/pentomino/solver/mod.rs]=c0ea198447ced5eca407f514de897340ddf4c99ab4e1651c43d955dd8969869b
  [rust/src/pentomino/solver/naive_solver.rs]=34eec0fa2acd0566c39d12092ed8d28dcb32fad31e7eb19179ea01b1f8815220
)

die() { echo "build_pentomino_solver.sh: $*" >&2; exit 1; }
command -v cargo >/dev/null || die "cargo not found (install a Rust toolchain)"

mkdir -p "$DEST"
WORK=$(mktemp -d "$DEST/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

if [[ -z "$SNAP" ]]; then
  git clone -q --depth 1 "https://github.com/$REPO.git" "$WORK/clone" \
    || die "cannot clone $REPO (no network? pass a snapshot git dir of $REPO)"
  SNAP=$WORK/clone
fi

CRATE=$WORK/crate
mkdir -p "$CRATE/src/pentomino/solver"
for path in "${!SRC[@]}"; do
  out="$CRATE/${path#rust/}"
  git --git-dir="$SNAP" show "$REV:$path" > "$out" 2>/dev/null \
    || git -C "$SNAP" show "$REV:$path" > "$out" \
    || die "$path not in $SNAP at $REV"
  got=$(sha256sum "$out" | cut -d' ' -f1)
  [[ "$got" == "${SRC[$path]}" ]] || die "$path: SHA-256 $got, pinned ${SRC[$path]} (another version; update the pin on purpose)"
done

# drop the dancing-links solver (the only user of the dancing-links crate)
sed -i -e '/^mod dlx_solver;$/d' -e '/^pub use dlx_solver::DlxSolver;$/d' "$CRATE/src/pentomino/solver/mod.rs"
grep -q dlx "$CRATE/src/pentomino/solver/mod.rs" && die "solver/mod.rs: could not remove the DLX solver"

cat > "$CRATE/Cargo.toml" <<'EOF'
[package]
name = "pentomino-solver"
version = "0.1.0"
edition = "2021"

[dependencies]

[profile.release]
opt-level = 3
EOF

cat > "$CRATE/src/main.rs" <<'EOF'
// Crate-free driver for the upstream NaiveSolver (bench/peers/build_pentomino_solver.sh).
#[allow(dead_code)]
mod pentomino;

use crate::pentomino::solver::{NaiveSolver, Solver};
use crate::pentomino::{BitBoard, Piece};
use std::time::Instant;

fn board(s: &str) -> Option<(usize, usize, BitBoard)> {
    // the board sizes of the upstream command line, with the same blocked cells
    match s {
        "6x10" | "10x6" => Some((6, 10, 0)),
        "5x12" | "12x5" => Some((5, 12, 0)),
        "4x15" | "15x4" => Some((4, 15, 0)),
        "3x20" | "20x3" => Some((3, 20, 0)),
        "8x8" => Some((8, 8, (1 << (3 * 8 + 3)) | (1 << (3 * 8 + 4)) | (1 << (4 * 8 + 3)) | (1 << (4 * 8 + 4)))),
        _ => None,
    }
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| String::from("6x10"));
    let (w, h, blocked) = match board(&arg) {
        Some(b) => b,
        None => {
            eprintln!("pentomino-solver: board {arg:?} is not one of 6x10, 5x12, 4x15, 3x20, 8x8");
            std::process::exit(2);
        }
    };
    let pieces = Piece::create_pentominos(w, h);
    let mut solver = NaiveSolver::new(w, h, pieces, blocked);
    let now = Instant::now();
    let (solutions, checks) = solver.solve();
    let secs = now.elapsed().as_secs_f64();
    println!("solutions={solutions} checks={checks} seconds={secs:.6}");
}
EOF

(cd "$CRATE" && cargo build --release --offline --quiet) || die "cargo build failed"
BIN=$CRATE/target/release/pentomino-solver

# self-test: the distinct solutions (rotations and reflections identified) of each board, as published
# (6x10: 2,339; 5x12: 1,010; 8x8 minus the 2x2 centre: 65; Golomb, "Polyominoes")
for case in 6x10:2339 5x12:1010 8x8:65; do
  b=${case%%:*} want=${case#*:}
  got=$("$BIN" "$b" | sed -n 's/^solutions=\([0-9]*\) .*/\1/p')
  [[ "$got" == "$want" ]] || die "self-test failed: $b gave $got solutions, expected $want"
done

mv -f "$BIN" "$DEST/pentomino-solver"
{
  echo "pentomino-solver built $(date -u +%Y-%m-%dT%H:%M:%SZ) from $REPO ($REV), NaiveSolver with a crate-free main"
  for path in "${!SRC[@]}"; do echo "sha256 ${SRC[$path]}  $path"; done
  echo "compiler: $(rustc --version); cargo build --release"
} > "$DEST/BUILD-INFO"
echo "$DEST/pentomino-solver"
