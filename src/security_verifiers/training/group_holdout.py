"""Template groups of the training split that SFT leaves to the RL stage.

E4's emails come in template groups (`info.group`): a group's emails share wording, and the
dataset never lets a group straddle train/dev/test. A model that has trained on a group's
emails is far surer of its siblings than of mail from a new template (the E4 SFT checkpoint of
proof run 15: greedy accuracy 0.913 on its training split, 0.828 on the test split). RL
prompts drawn from groups SFT trained on therefore show the policy few of the mistakes it makes
on new templates, and the share of a group's samples that agree says little about its
uncertainty on unseen mail.

`data.rl_groups` (SFT) sets aside a share of the training split's groups, chosen per gold
label by a seeded hash (so both labels keep their proportion), and records them in the SFT
checkpoint's `datasets.json`; `envs.<env>.rows: sft_held_out` (RL) samples only those groups'
rows. Rows without a group are their own group.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from security_verifiers.errors import UserError
from security_verifiers.training.envs import TrainingEnv, row_info, row_key

HELD_OUT_KEY = "rl_groups"
"""The key of `datasets.json`'s `sft_examples` entry that lists the groups SFT left out."""


def row_group(row: dict[str, Any]) -> str:
    """The row's template group (`info.group`), or its own key when it has none."""
    group = row_info(row).get("group")
    return str(group) if group else f"row:{row_key(row)}"


def _rank(seed: int, group: str) -> str:
    return hashlib.sha256(f"{seed}\x00{group}".encode()).hexdigest()


def choose_groups(rows: Sequence[dict[str, Any]], share: float, seed: int) -> list[str]:
    """`share` of the rows' groups (rounded, per gold label, at least one per label when the
    share is positive), the lowest seeded hashes first; sorted."""
    if share <= 0:
        return []
    by_label: dict[str, set[str]] = {}
    for row in rows:
        by_label.setdefault(str(row.get("answer")), set()).add(row_group(row))
    chosen: list[str] = []
    for groups in by_label.values():
        count = max(1, round(share * len(groups)))
        if count >= len(groups):
            raise UserError(
                f"data.rl_groups: {share} of {len(groups)} groups leaves SFT none of a label"
            )
        chosen += sorted(groups, key=lambda g: _rank(seed, g))[:count]
    return sorted(set(chosen))


def split_rows(
    rows: Sequence[dict[str, Any]], groups: Sequence[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(rows outside `groups`, rows inside), each in the original order."""
    held = set(groups)
    outside = [row for row in rows if row_group(row) not in held]
    inside = [row for row in rows if row_group(row) in held]
    return outside, inside


def summary(inside: Sequence[dict[str, Any]], groups: Sequence[str], share: float) -> dict:
    """What `datasets.json` records of the held-out groups and their rows (`inside`)."""
    return {
        "share": share,
        "groups": list(groups),
        "rows": len(inside),
        "labels": dict(Counter(str(row.get("answer")) for row in inside)),
    }


def recorded_groups(checkpoint_location: str | Path, env_key: str) -> list[str]:
    """The groups the SFT checkpoint at (or holding) `checkpoint_location` left out, from its
    `datasets.json`; a UserError when it recorded none for `env_key`."""
    location = Path(checkpoint_location)
    paths = [d / "datasets.json" for d in (location, location.parent)]
    path = next((p for p in paths if p.is_file()), None)
    datasets = json.loads(path.read_text()) if path else {}
    held = (datasets.get("sft_examples") or {}).get(HELD_OUT_KEY) or {}
    if env_key in datasets and held.get("groups"):
        return [str(g) for g in held["groups"]]
    raise UserError(
        f"envs.{env_key}.rows: sft_held_out needs a start checkpoint whose SFT left groups of "
        f"{env_key} out (data.rl_groups > 0); {location} records none"
    )


def hold_out_groups(training_env: TrainingEnv, share: float, seed: int) -> dict | None:
    """Remove `share` of the environment's template groups from its rows (SFT then never
    sees them); returns what to record, or None when `share` is 0."""
    if share <= 0:
        return None
    groups = choose_groups(training_env.rows, share, seed)
    training_env.rows, inside = split_rows(training_env.rows, groups)
    return summary(inside, groups, share)


def keep_held_out(training_env: TrainingEnv, checkpoint_location: str | Path) -> int:
    """Keep only the environment's rows of the groups the start checkpoint's SFT left out;
    returns how many rows remain (a UserError when none do)."""
    groups = recorded_groups(checkpoint_location, training_env.key)
    _, training_env.rows = split_rows(training_env.rows, groups)
    if not training_env.rows:
        raise UserError(
            f"envs.{training_env.key}.rows: sft_held_out: none of the {len(groups)} groups the "
            f"start checkpoint left out is in this split"
        )
    return len(training_env.rows)
