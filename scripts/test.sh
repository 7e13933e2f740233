#!/usr/bin/env bash
# The README's test command: every crate of the workspace, generator included (its regeneration
# check runs where the pinned inputs are installed and says why it skips elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test --workspace --locked --no-fail-fast "$@"
