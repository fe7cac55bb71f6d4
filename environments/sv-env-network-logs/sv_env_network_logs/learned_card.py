"""`python -m sv_env_network_logs.learned_card`: what the learned baseline was fit on, and its
mean reward on the synthetic dev and test splits (the test split is only reported)."""

from __future__ import annotations

import json

from sv_env_network_logs.dataset import content_hash, load_flows
from sv_env_network_logs.learned import decide, default_model
from sv_env_network_logs.probes import answer, reward


def card() -> dict[str, object]:
    """What the baseline was fit on, and its reward on the dev and test splits."""
    train, _ = load_flows("synthetic", split="train")
    out: dict[str, object] = {"train_hash": content_hash(train), "train_rows": len(train)}
    model = default_model()
    for split in ("dev", "test"):
        items, _ = load_flows("synthetic", split=split)
        probs = model.proba(items)
        rewards = [
            reward(answer(*decide(float(p))), {"gold": item.label})
            for p, item in zip(probs, items, strict=True)
        ]
        out[f"{split}_reward_mean"] = round(sum(rewards) / len(rewards), 4)
    return out


if __name__ == "__main__":
    print(json.dumps(card(), indent=2))
