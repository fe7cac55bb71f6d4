"""Checkpoint directories: `<output_root>/<model-slug>/<stage>/<UTC timestamp>/`.

Each holds what is needed to trust and reuse it:

* `sv_checkpoint.json` — stage, status (`running` / `complete` / `interrupted`), base model,
  steps, wall-clock seconds, start/end times;
* `config.yaml` — the validated recipe as run (after CLI overrides);
* `reward_weights.json` — per environment, the weight of every reward component;
* `datasets.json` — content hashes, splits and row counts of the data trained on;
* `metrics.json` — the trainer's log history and the final metrics; `curves.png`;
* `adapter/` — the LoRA adapter (+ `sv_base.json` naming its base) and tokenizer;
* `model/` — merged weights and tokenizer (when `save_merged`), loadable by any HF tool;
* `trainer/` — the trainer's periodic checkpoint (the last one is kept if a run is stopped).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from security_verifiers.models.hf_checkpoint import BASE_MARKER, CHECKPOINT_MARKER, CheckpointRef
from security_verifiers.models.local_gguf import BUILTIN_GGUF


def _dump(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")
    return path


@dataclass
class CheckpointDir:
    root: Path
    model_slug: str
    stage: str
    started: datetime = field(default_factory=lambda: datetime.now(UTC))

    @classmethod
    def create(cls, output_root: Path, model_slug: str, stage: str) -> CheckpointDir:
        """A new, empty directory named by the current UTC time (suffixed if taken)."""
        now = datetime.now(UTC)
        parent = Path(output_root) / model_slug / stage
        stem = now.strftime("%Y%m%dT%H%M%SZ")
        root, n = parent / stem, 1
        while root.exists():
            n += 1
            root = parent / f"{stem}-{n}"
        root.mkdir(parents=True)
        return cls(root, model_slug, stage, now)

    @property
    def trainer_dir(self) -> Path:
        return self.root / "trainer"

    def mark(self, status: str, **fields: Any) -> None:
        """Write `sv_checkpoint.json` (merged with what it already holds)."""
        path = self.root / CHECKPOINT_MARKER
        current = json.loads(path.read_text()) if path.is_file() else {}
        current.update(
            {
                "model_slug": self.model_slug,
                "stage": self.stage,
                "status": status,
                "started_at": self.started.isoformat(),
                **fields,
            }
        )
        if status != "running":
            now = datetime.now(UTC)
            current["finished_at"] = now.isoformat()
            current["wall_clock_s"] = round((now - self.started).total_seconds(), 1)
        _dump(path, current)

    def write_config(self, recipe: Any) -> None:
        data = json.loads(recipe.model_dump_json())
        (self.root / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False))

    def write_reward_weights(self, weights: Mapping[str, Any]) -> None:
        _dump(self.root / "reward_weights.json", dict(weights))

    def write_datasets(self, datasets: Mapping[str, Any]) -> None:
        _dump(self.root / "datasets.json", dict(datasets))

    def write_metrics(self, log_history: Sequence[Mapping[str, Any]], final: Mapping) -> Path:
        return _dump(self.root / "metrics.json", {"log_history": list(log_history), "final": final})

    def save_model(
        self, model: Any, tokenizer: Any, base: CheckpointRef, *, merged: bool
    ) -> dict[str, str]:
        """Save the LoRA adapter (and, when `merged`, the merged model); returns their paths.

        Merging unloads the adapter from `model`, so call this last.
        """
        saved: dict[str, str] = {}
        adapter = self.root / "adapter"
        model.save_pretrained(adapter)
        tokenizer.save_pretrained(adapter)
        builtin = base.kind == "gguf" and base.spec.removeprefix("local/") in BUILTIN_GGUF
        base_spec = base.spec if builtin else base.location
        _dump(adapter / BASE_MARKER, {"model": base_spec, "base": base.describe()})
        saved["adapter"] = str(adapter)
        if merged and hasattr(model, "merge_and_unload"):
            full = model.merge_and_unload()
            full.save_pretrained(self.root / "model")
            tokenizer.save_pretrained(self.root / "model")
            saved["model"] = str(self.root / "model")
        return saved


CURVE_KEYS = (
    "loss",
    "mean_token_accuracy",
    "decision_accuracy",
    "reward",
    "reward_std",
    "completions/mean_length",
    "kl",
    "entropy",
)


def _series(history: Sequence[Mapping[str, Any]], key: str) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for entry in history:
        value = entry.get(key)
        if isinstance(value, (int, float)) and math.isfinite(value) and "step" in entry:
            xs.append(float(entry["step"]))
            ys.append(float(value))
    return xs, ys


def plot_curves(
    history: Sequence[Mapping[str, Any]], path: Path, title: str, stage_bounds: Sequence = ()
) -> Path | None:
    """Learning curves (loss, reward and every `rewards/<env>/<component>/mean`) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [k for k in CURVE_KEYS if _series(history, k)[0]]
    components = sorted(
        {k for e in history for k in e if k.startswith("rewards/") and k.endswith("/mean")}
    )
    panels = [[k] for k in keys] + ([components] if components else [])
    if not panels:
        return None
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    for ax, panel in zip(axes.flat, panels, strict=False):
        for key in panel:
            xs, ys = _series(history, key)
            label = key.removeprefix("rewards/").removesuffix("/mean")
            ax.plot(xs, ys, marker="." if len(xs) < 40 else None, label=label)
        for step, _label in stage_bounds:
            ax.axvline(step, color="grey", linestyle=":", linewidth=0.8)
        ax.set_title("reward components" if len(panel) > 1 else panel[0], fontsize=9)
        ax.set_xlabel("step", fontsize=8)
        ax.tick_params(labelsize=7)
        if len(panel) > 1:
            ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
