"""`sv sim2real <env>`: fit on synthetic train, score in-domain and on real data, print a table."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from security_verifiers.environments import entries_with, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.sim2real.scoring import GOAL_RATIO, f1_ratio, score_set, verdict
from sv_shared.sim2real import EnvTask, RealSet

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_REALDATA = REPO_ROOT.parent / "shared" / "realdata"


def _listed(keys: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return " and ".join([", ".join(keys[:-1]), keys[-1]] if len(keys) > 1 else keys)


def get_task(env: str) -> EnvTask:
    """The sim-to-real task of ``env``: its spec's `sim2real` hook, keyed by its short name."""
    entry = resolve_env(env)
    task = entry.hook("sim2real")
    if task is None:
        keys = [e.key for e in entries_with("sim2real")]
        raise UserError(f"sim2real supports {_listed(keys) or 'no environment'}, not {entry.key}")
    return dataclasses.replace(task, key=entry.key)


def _progress(message: str, quiet: bool) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def real_sets(task: EnvTask, real: Path | None, fmt: str | None, realdata: Path) -> list[RealSet]:
    """The user's file (``--real``) or the default samples under ``realdata``."""
    if fmt is not None and fmt not in task.formats:
        raise UserError(f"--format must be one of {', '.join(task.formats)} for {task.key}")
    if real is not None and not real.exists():
        raise UserError(f"--real: {real} does not exist")
    if real is None and not realdata.is_dir():
        raise UserError(f"no real data: {realdata} not found; pass --real PATH or --realdata DIR")
    try:
        if real is not None:
            return [task.load_real(real, fmt or task.formats[0])]
        return task.default_real(realdata)
    except (ValueError, OSError) as exc:  # the loaders' DatasetError / SourceError / ...
        raise UserError(str(exc).splitlines()[0]) from None


def run(task: EnvTask, sets: list[RealSet], seed: int, quiet: bool = True) -> dict[str, Any]:
    """Fit per feature set, score the synthetic test split and each real set."""
    _progress(f"[{task.key}] loading synthetic train/test", quiet)
    train, test = task.train_test()
    models: dict[tuple[str, ...] | None, Any] = {}
    comparisons = []
    for real in sets:
        if not real.items:
            raise UserError(f"{real.name}: no labeled rows")
        if real.features not in models:
            _progress(f"[{task.key}] fitting on {len(train)} synthetic train rows", quiet)
            models[real.features] = task.fit(train, seed, real.features)
        model = models[real.features]
        _progress(f"[{task.key}] scoring {len(test)} in-domain and {len(real.items)} real", quiet)
        in_domain = score_set(task.y(test), model.proba(test), seed=seed)
        scored = score_set(task.y(real.items), model.proba(real.items), seed=seed)
        ratio = f1_ratio(in_domain, scored)
        outcome, why = verdict(in_domain, scored)
        comparisons.append(
            {
                "real_set": real.name,
                "path": real.path,
                "features": list(real.features) if real.features else None,
                "notes": real.notes,
                "in_domain": in_domain,
                "real": scored,
                "f1_ratio": ratio,
                "controls": task.controls(real, model, seed) if task.controls else [],
                "verdict": outcome,
                "verdict_reason": why,
                "meets_goal": outcome == "meets" if outcome in ("meets", "below") else None,
            }
        )
    return {
        "env": task.key,
        "model": task.model_name,
        "positive_label": task.positive,
        "seed": seed,
        "goal_f1_ratio": GOAL_RATIO,
        "n_train": len(train),
        "train_positives": int(task.y(train).sum()),
        "comparisons": comparisons,
    }


def _cell(value: float | None, ci: list[float] | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else f"{value:.3f}"


def format_report(report: dict[str, Any]) -> str:
    """The in-domain vs real table, one block per real set."""
    lines = [
        f"{report['env']} sim2real: {report['model']} (seed {report['seed']}); prev = share of "
        f"{report['positive_label']}, constF1 = F1 of predicting {report['positive_label']} always",
        f"trained on synthetic train: n={report['n_train']}, "
        f"{report['positive_label']}={report['train_positives']}",
    ]
    head = f"{'set':<40} {'n':>5} {'pos':>5} {'prev':>5} {'constF1':>7}  " + "  ".join(
        f"{m:<21}" for m in ("F1 [95% CI]", "recall", "precision", "ROC AUC")
    )
    for comp in report["comparisons"]:
        lines += ["", head]
        for name, s in (
            ("in-domain (synthetic test)", comp["in_domain"]),
            (comp["real_set"], comp["real"]),
        ):
            cells = [_cell(s[m], s[f"{m}_ci95"]) for m in ("f1", "recall", "precision", "roc_auc")]
            prevalence = "n/a" if s["prevalence"] is None else f"{s['prevalence']:.3f}"
            constant = "n/a" if s["constant_f1"] is None else f"{s['constant_f1']:.3f}"
            lines.append(
                f"{name[:40]:<40} {s['n']:>5} {s['positives']:>5} {prevalence:>5} {constant:>7}  "
                + "  ".join(f"{c:<21}" for c in cells)
            )
        ratio = comp["f1_ratio"]
        shown = "n/a" if ratio is None else f"{ratio:.3f}"
        why = f" ({comp['verdict_reason']})" if comp["verdict_reason"] else ""
        lines.append(
            f"F1 ratio real/in-domain: {shown} (goal >= {report['goal_f1_ratio']}): "
            f"{comp['verdict']}{why}"
        )
        for control in comp.get("controls", []):
            note = f" ({control['note']})" if control.get("note") else ""
            lines.append(
                f"control: {control['name']}: {_cell(control['value'], control['ci95'])}{note}"
            )
        if comp["features"]:
            lines.append(f"features: {', '.join(comp['features'])}")
        lines += [f"note: {note}" for note in comp["notes"]]
    return "\n".join(line.rstrip() for line in lines)


def sim2real(
    env: Annotated[str, typer.Argument(help="An environment with a sim2real task (`sv envs`).")],
    real: Annotated[
        Path | None, typer.Option("--real", help="Real labeled file/folder (default: samples).")
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="Format of --real (default: the environment's first; a wrong one lists them).",
        ),
    ] = None,
    realdata: Annotated[
        Path, typer.Option(help="Folder of the shared real samples.")
    ] = DEFAULT_REALDATA,
    seed: Annotated[int, typer.Option(help="Classifier and bootstrap seed.")] = 42,
    out: Annotated[Path | None, typer.Option("--out", help="Write the report as JSON.")] = None,
    quiet: Annotated[bool, typer.Option(help="No progress lines on stderr.")] = False,
) -> None:
    """Fit a standard classifier on synthetic train; compare in-domain and real F1."""
    task = get_task(env)
    sets = real_sets(task, real, fmt, realdata)
    report = run(task, sets, seed, quiet)
    typer.echo(format_report(report))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
