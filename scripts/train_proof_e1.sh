#!/usr/bin/env bash
# Kept for old command lines: the proof is now `make train-proof ENV=e1` (training/proof.py).
#   bash scripts/train_proof_e1.sh --smoke
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m security_verifiers.training.proof --env e1 "$@"
