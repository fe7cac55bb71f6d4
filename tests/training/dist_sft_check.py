"""Launched by test_accelerate_config.py under `accelerate launch --cpu --num_processes 2`:
builds the recipe's SFT trainer on the tiny model in each process (gloo backend) and trains
one step, then prints what the accelerator saw. Usage: dist_sft_check.py MODEL_DIR OUT_DIR"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from security_verifiers.models.hf_checkpoint import resolve_checkpoint
from security_verifiers.training.config import LoraSettings, SFTRecipe, SFTTrain
from security_verifiers.training.runtime import setup_runtime
from security_verifiers.training.sft import build_sft_trainer


def main() -> None:
    model_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    answer = '{"label": "Benign", "confidence": 0.9}'
    examples = [
        {"prompt": [{"role": "user", "content": f"flow {i}"}],
         "completion": [{"role": "assistant", "content": answer}]}
        for i in range(8)
    ]  # fmt: skip
    recipe = SFTRecipe(
        model=str(model_dir),
        dtype="float32",
        threads=1,
        lora=LoraSettings(r=4, alpha=8, dropout=0.0),
        train=SFTTrain(max_steps=1, batch_size=2, logging_steps=1, save_steps=100,
                       max_length=256, decision_weight=10.0),  # the model's own forward
    )  # fmt: skip
    runtime = setup_runtime(1, "float32")
    _, trainer = build_sft_trainer(
        recipe, resolve_checkpoint(str(model_dir)), examples, out / "trainer", runtime
    )
    trainer.train()
    state = trainer.accelerator.state
    rank = state.process_index
    report = {
        "rank": rank,
        "num_processes": state.num_processes,
        "distributed_type": str(state.distributed_type),
        "backend": getattr(state, "backend", None),
        "global_step": trainer.state.global_step,
        "decision_logged": any("decision_accuracy" in e for e in trainer.state.log_history),
    }
    (out / f"rank{rank}.json").write_text(json.dumps(report))


if __name__ == "__main__":
    main()
