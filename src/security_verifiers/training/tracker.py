"""Watching a training run: the recipes' `report_to` (W&B, Trackio or none).

Off by default and never required: `report_to: none` imports nothing. `wandb` or `trackio`
must be installed (a missing package is one line naming the recipe field); both work offline
(`WANDB_MODE=offline`; Trackio logs to a local SQLite file under `TRACKIO_DIR`, browsed with
`trackio show`). The trainer's own integration (transformers' W&B and Trackio callbacks)
sends the metrics; :class:`TrackerLink` records where they went — the run's URL, or for an
offline run where its files are and how to view them — in the checkpoint's
`sv_checkpoint.json` under ``tracker``.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any, Literal

from security_verifiers.errors import UserError

ReportTo = Literal["none", "wandb", "trackio"]
PACKAGES = {"wandb": "wandb", "trackio": "trackio"}
DEFAULT_PROJECT = "security-verifiers"


def check_reporter(report_to: str, field: str = "report_to") -> None:
    """One line when the tracker's package is missing."""
    package = PACKAGES.get(report_to)
    if package and importlib.util.find_spec(package) is None:
        raise UserError(
            f"{field}: {report_to} needs the {package} package (pip install {package}); "
            f"or set {field}: none"
        )


def trainer_kwargs(report_to: str, project: str | None, run_name: str) -> dict[str, Any]:
    """The TrainingArguments fields for the tracker; sets the project where the trainer's
    integration reads it from the environment (W&B)."""
    if report_to == "none":
        return {"report_to": "none"}
    check_reporter(report_to)
    project = project or DEFAULT_PROJECT
    if report_to == "wandb":
        os.environ.setdefault("WANDB_PROJECT", project)
    kwargs: dict[str, Any] = {"report_to": report_to, "run_name": run_name}
    if report_to == "trackio":
        kwargs["project"] = project
    return kwargs


def tracker_record(report_to: str, project: str | None, run_name: str) -> dict[str, Any] | None:
    """Where the run's metrics are: URL (online) or local files and how to view them."""
    if report_to == "none":
        return None
    project = project or DEFAULT_PROJECT
    record: dict[str, Any] = {"report_to": report_to, "project": project, "run_name": run_name}
    if report_to == "wandb":
        import wandb

        run = wandb.run
        if run is not None:
            record["url"] = run.url
            record["run_id"] = run.id
            if not run.url:  # offline: files to `wandb sync`
                record["local_dir"] = str(run.dir)
                record["view"] = f"wandb sync {os.path.dirname(str(run.dir))}"
        return record
    import trackio

    run = trackio.context_vars.current_run.get()
    space = getattr(run, "_space_id", None) if run is not None else None
    record["url"] = f"https://huggingface.co/spaces/{space}" if space else None
    record["local_dir"] = str(trackio.TRACKIO_DIR)
    record["view"] = f'trackio show --project "{project}"'
    if run is not None:
        record["run_id"] = getattr(run, "id", None)
    return record


def tracker_link(report_to: str, project: str | None, run_name: str,
                 save: Callable[[dict[str, Any]], None]):  # fmt: skip
    """A TrainerCallback that saves :func:`tracker_record` once the tracker's run exists
    (at the first log; at the end of training if nothing was logged)."""
    from transformers import TrainerCallback

    class TrackerLink(TrainerCallback):
        saved = False

        def _save(self) -> None:
            record = tracker_record(report_to, project, run_name)
            if record is not None:
                save(record)
                self.saved = True

        def on_log(self, args, state, control, **kwargs):
            if not self.saved:
                self._save()

        def on_train_end(self, args, state, control, **kwargs):
            if not self.saved:
                self._save()

    return TrackerLink()
