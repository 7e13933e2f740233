#!/bin/sh
# Regenerates the ISA tables (autogen/src/isa/gfx*.rs), autogen/isa_coverage.md and the golden vectors
# (tests/isa/golden/*.txt) with llvm-mc 22. The generator writes every autogen file, these included;
# to touch only the ISA outputs, it runs into a scratch directory and copies them back.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/autogen"
cargo run --quiet --manifest-path "$root/Cargo.toml" -p baregpu-autogen-gen -- --out "$out/autogen" >/dev/null
cp "$out"/autogen/src/isa/gfx*.rs "$root/autogen/src/isa/"
cp "$out/autogen/isa_coverage.md" "$root/autogen/"
mkdir -p "$root/tests/isa/golden"
cp "$out"/tests/isa/golden/*.txt "$root/tests/isa/golden/"
echo "ISA tables and golden vectors regenerated"
