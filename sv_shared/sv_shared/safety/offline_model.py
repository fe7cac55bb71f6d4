"""The shipped linear models of the offline judge (pure Python inference over JSON weights).

``data/offline_model.json`` holds a binary harmful-request model and a category model over the
features of :mod:`sv_shared.safety.features`; ``python -m sv_shared.safety.train_offline``
reproduces it from ``data/requests.jsonl``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from sv_shared.safety.features import DIMENSION, featurize
from sv_shared.safety.types import JudgeError
from sv_shared.safety.weights_file import read_weights

MODEL_FORMAT = "sv-offline-linear/1"
MODEL_FILE = "offline_model.json"


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@dataclass(frozen=True)
class OfflineModel:
    """Binary harm weights plus per-category weights (harmful examples only)."""

    bias: float
    weights: dict[int, float]
    classes: tuple[str, ...]
    class_bias: tuple[float, ...]
    class_weights: dict[int, tuple[float, ...]]
    metadata: dict

    def p_harmful(self, text: str) -> float:
        """P(the request is harmful)."""
        features = featurize(text)
        z = self.bias + sum(value * self.weights.get(i, 0.0) for i, value in features.items())
        return _sigmoid(z)

    def category_scores(self, text: str) -> dict[str, float]:
        """Softmax over categories (meaningful only for harmful text)."""
        scores = list(self.class_bias)
        for index, value in featurize(text).items():
            row = self.class_weights.get(index)
            if row is not None:
                for k, weight in enumerate(row):
                    scores[k] += value * weight
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return {code: e / total for code, e in zip(self.classes, exps, strict=True)}

    @classmethod
    def from_dict(cls, data: dict, source: str = "model") -> OfflineModel:
        """Parse the JSON form; raises :class:`JudgeError` naming ``source`` when malformed."""
        try:
            if data["format"] != MODEL_FORMAT or data["dimension"] != DIMENSION:
                raise JudgeError(
                    f"{source}: expected format {MODEL_FORMAT} with dimension {DIMENSION}, "
                    f"got {data.get('format')!r}/{data.get('dimension')!r}"
                )
            binary, category = data["binary"], data["categories"]
            return cls(
                bias=float(binary["bias"]),
                weights={int(k): float(v) for k, v in binary["weights"].items()},
                classes=tuple(category["classes"]),
                class_bias=tuple(float(b) for b in category["bias"]),
                class_weights={
                    int(k): tuple(float(w) for w in row) for k, row in category["weights"].items()
                },
                metadata=dict(data.get("metadata", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, JudgeError):
                raise
            raise JudgeError(f"{source}: malformed offline model ({exc!r})") from None


def load_model(path: str | Path | None = None) -> OfflineModel:
    """The model at ``path``, or the shipped one."""
    if path is None:
        return shipped_model()
    return OfflineModel.from_dict(read_weights(path, "offline model"), str(path))


@lru_cache(maxsize=1)
def shipped_model() -> OfflineModel:
    """The model shipped in the package data (loaded once)."""
    path = Path(str(resources.files("sv_shared.safety") / "data" / MODEL_FILE))
    if not path.is_file():
        raise JudgeError(
            f"shipped offline model {MODEL_FILE} is missing; "
            "run `python -m sv_shared.safety.train_offline`"
        )
    data = read_weights(path, "offline model")
    return OfflineModel.from_dict(data, MODEL_FILE)
