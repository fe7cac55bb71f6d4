"""`python -m sv_env_phishing_detection.learned_card`: what the learned baseline was fit on,
and its mean reward on the synthetic dev and test splits (the test split is only reported)."""

from __future__ import annotations

import json

from .dataset import load_synthetic
from .environment import episode
from .learned import decide, default_model
from .probes import answer, reward
from .records import PHISHING
from .sources import records_hash


def card() -> dict[str, object]:
    """What the baseline was fit on, and its reward on the dev and test splits."""
    train = load_synthetic("train")
    out: dict[str, object] = {"train_hash": records_hash(train), "train_rows": len(train)}
    model = default_model()
    for split in ("dev", "test"):
        records = load_synthetic(split)
        probs = model.proba(records)
        rewards = []
        for p, record in zip(probs, records, strict=True):
            info = episode(record, comparable=False)["info"]
            label, confidence = decide(float(p), cites=bool(info["indicators"]))
            evidence = list(info["indicators"]) if label == PHISHING else []
            rewards.append(reward(answer(label, confidence, evidence), info))
        out[f"{split}_reward_mean"] = round(sum(rewards) / len(rewards), 4)
    return out


if __name__ == "__main__":
    print(json.dumps(card(), indent=2))
