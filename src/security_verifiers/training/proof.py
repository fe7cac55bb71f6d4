"""`make train-proof ENV=e1|e4`: SFT -> RL -> eval of base / SFT / RL, one command.

1. SFT (`configs/sft/<env>.yaml`): >= 1,000 verified training-split examples (gold labels with
   calibrated confidences, Abstain where look-alike items disagree), compact prompts.
2. RL (`configs/rlft/<env>.yaml`) from that checkpoint: expert iteration (default) or GRPO
   (`--algorithm grpo`).
3. `sv eval` of base, SFT and RL through the same provider on the same >= 200 test items
   (E4: the whole 377-item split; compact prompts, greedy): by default llama.cpp
   (`--eval-backend llama`: the checkpoints are exported to `<checkpoint>/model.gguf` by
   `training/export_gguf.py` and evaluated as
   `local:<gguf>`, the base as `local/smollm2-135m`), or transformers (`--eval-backend hf`:
   `hf:<checkpoint>`, several times slower on a CPU); plus a real-data column (E1: the
   Stratosphere zeek sample, E4: the Nazario/Enron samples) when the files are present —
   skipped with a notice otherwise.
4. Paired-bootstrap tables (`training/compare.py`) per column, in `<out>/table.md`.

Every stage runs as its own process (its peak memory and time are its own) and is logged to
`<out>/<stage>.log`; `<out>/proof.json` holds checkpoints, run directories, wall-clock seconds
and the tables. `--smoke` shrinks every stage to seconds-to-minutes (plumbing check only).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from security_verifiers.models.local_gguf import (
    DEFAULT_LOCAL_MODEL,
    LOCAL_PATH_PREFIX,
    LOCAL_PREFIX,
)

REPO = Path(__file__).resolve().parents[3]
# What each environment's proof runs (real-data column, answer budget, test items) is its
# spec's `proof` (`sv_shared.spec.ProofTask`; E4's answers carry evidence, hence its larger
# budget). E4 evaluates its whole test split (377 items): at 200 the paired reward difference's
# 95% interval is about +/-0.10, wider than the RL - SFT gains of 0.05-0.07 seen in runs 8 and 9
# (issue 21, stop 39). E1's has 927, where 200 already separated them.
SMOKE_ITEMS = 4
LOW_MEMORY_SFT = ("train.batch_size=2", "train.grad_accum=4")
LOW_MEMORY_RL = ("expert_iteration.batch_size=2", "expert_iteration.grad_accum=4",
                 "expert_iteration.activation_checkpointing=true")  # fmt: skip
"""`--low-memory`: the same answers per step from half the activations, and expert iteration
recomputes each layer in the backward pass (E4: SFT peak 2.2 GB, RL 2.9 GB; docs/training.md)."""


def smoke_items(count: int) -> int:
    """A `--smoke` run's items: at most `SMOKE_ITEMS`, also where `count` is -1 (all)."""
    return SMOKE_ITEMS if count < 0 else min(count, SMOKE_ITEMS)


def sv_command() -> list[str]:
    exe = Path(sys.executable).with_name("sv")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "security_verifiers.cli"]


class Stages:
    """Runs stage commands, logging each to `<out>/<name>.log` and timing it."""

    def __init__(self, out: Path, threads: int | None) -> None:
        self.out = out
        self.timings: dict[str, float] = {}
        self.env = {**os.environ, "HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1"),
                    "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}  # fmt: skip
        if threads:  # the hf: server reads OMP_NUM_THREADS, local llama.cpp SV_LOCAL_THREADS
            self.env["OMP_NUM_THREADS"] = str(threads)
            self.env["SV_LOCAL_THREADS"] = str(threads)

    def run(self, name: str, command: list[str], env: dict[str, str] | None = None) -> str:
        """Run `command` (with `env` added to the stage environment); returns the last line of
        its stdout (the result path)."""
        print(f"[{name}] {' '.join(command)}", file=sys.stderr, flush=True)
        start = time.perf_counter()
        with (self.out / f"{name}.log").open("w") as log:
            done = subprocess.run(
                command, cwd=REPO, env={**self.env, **(env or {})}, stdout=subprocess.PIPE,
                stderr=log, text=True,
            )  # fmt: skip
        self.timings[name] = round(time.perf_counter() - start, 1)
        (self.out / f"{name}.out").write_text(done.stdout)
        if done.returncode != 0:
            tail = (self.out / f"{name}.log").read_text().strip().splitlines()[-15:]
            raise SystemExit(f"[{name}] failed (exit {done.returncode}):\n" + "\n".join(tail))
        lines = [line for line in done.stdout.strip().splitlines() if line.strip()]
        print(f"[{name}] done in {self.timings[name]:.0f} s", file=sys.stderr, flush=True)
        return lines[-1] if lines else ""

    def run_all(self, commands: dict[str, list[str]], jobs: int, threads: int) -> float:
        """Run the stage commands `jobs` at a time, each with `threads // jobs` threads (the
        evals: a small model's llama.cpp threads scale poorly, so two one-thread servers get
        through more items than one two-thread server). Returns the wall-clock seconds."""
        per_job = max(1, threads // jobs)
        env = {"SV_LOCAL_THREADS": str(per_job), "OMP_NUM_THREADS": str(per_job)}
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(self.run, name, cmd, env) for name, cmd in commands.items()]
            for future in futures:
                future.result()
        return round(time.perf_counter() - start, 1)


def llama_cpu_features() -> str | None:
    """llama.cpp's CPU feature line (`AVX2 = 1 | AVX512 = 1 | ...`): which build scored the
    evals (an AVX-512 build answers ~1.4x faster and not always identically); None without
    llama-cpp-python."""
    try:
        import llama_cpp
    except ImportError:
        return None
    return llama_cpp.llama_print_system_info().decode(errors="replace").strip()


def run_dir(root: Path) -> Path:
    """The single eval run directory under `root` (the newest if several)."""
    found = sorted(root.rglob("results.jsonl"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise SystemExit(f"no eval results under {root}")
    return found[-1].parent


def eval_model_name(
    checkpoint: str, backend: str, stages: Stages, label: str = "", gguf: Path | None = None
) -> str:
    """The `sv eval` model name of a checkpoint: its GGUF export in llama.cpp (`llama`, an
    `export-<label>` stage, to `gguf` or the checkpoint's own `model.gguf`) or the
    transformers server (`hf`)."""
    if backend != "llama":
        return f"hf:{checkpoint}"
    export = [sys.executable, "-m", "security_verifiers.training.export_gguf", checkpoint,
              *(["--out", str(gguf)] if gguf else [])]  # fmt: skip
    name = f"export-{label or Path(checkpoint).name}"
    return f"{LOCAL_PATH_PREFIX}{stages.run(name, export)}"


def base_eval_model(sft_config: Path, backend: str, stages: Stages, out: Path) -> str:
    """The `sv eval` name of the SFT recipe's starting model: with `hf`, `hf:<model>` (any model
    transformers loads); with `llama`, the weights SFT starts from exported like the checkpoints
    (an `export-base` stage: f16 GGUF, so base, SFT and RL run the same kernels at the same
    precision; a quantised GGUF base is trained from its dequantised weights, and those are
    what this exports)."""
    from security_verifiers.errors import UserError
    from security_verifiers.training.config import SFTRecipe, load_recipe
    from security_verifiers.training.export_gguf import GGUF_NAME

    try:
        model = load_recipe(REPO / sft_config, SFTRecipe).model
    except UserError as exc:
        raise SystemExit(f"--sft-config: {exc}") from None
    local = model == DEFAULT_LOCAL_MODEL.removeprefix(LOCAL_PREFIX) or model.endswith(".gguf")
    if backend == "llama" and not (local or Path(model).is_dir()):
        raise SystemExit(f"--eval-backend llama: cannot export the base model {model!r} to "
                         "GGUF here (use --eval-backend hf)")  # fmt: skip
    return eval_model_name(model, backend, stages, "base", gguf=out / "base" / GGUF_NAME)


def reused_checkpoint(path: Path, flag: str) -> Path:
    """A finished checkpoint given by `flag`; exits with one line if it is not one."""
    path = path.resolve()
    marker = path / "sv_checkpoint.json"
    status = json.loads(marker.read_text()).get("status") if marker.is_file() else None
    if status != "complete":
        raise SystemExit(f"{flag}: {path} is not a finished checkpoint "
                         f"(sv_checkpoint.json status: {status})")  # fmt: skip
    return path


def peak_rss_mb(checkpoint: str) -> float | None:
    """The peak RSS a training stage recorded in its checkpoint marker, if any."""
    from security_verifiers.models.hf_checkpoint import CHECKPOINT_MARKER

    try:
        value = json.loads((Path(checkpoint) / CHECKPOINT_MARKER).read_text()).get("peak_rss_mb")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int | float) else None


def kept_start(checkpoint: str) -> bool:
    """Whether an RL checkpoint is its starting adapter: round selection kept round 0 in every
    stage, so its weights are the SFT model's and its evals would repeat SFT's answers."""
    from security_verifiers.models.hf_checkpoint import CHECKPOINT_MARKER

    try:
        marker = json.loads((Path(checkpoint) / CHECKPOINT_MARKER).read_text())
    except (OSError, ValueError):
        return False
    stages = marker.get("stages") if isinstance(marker, dict) else None
    if not stages:
        return False
    return all(
        isinstance(stage, dict) and (stage.get("round_selection") or {}).get("selected_round") == 0
        for stage in stages
    )


def env_arg_flags(args: dict[str, Any]) -> list[str]:
    return [part for key, value in args.items() for part in ("--env-arg", f"{key}={value}")]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    from security_verifiers.environments import entries_with

    proofs = {e.key: e.spec.proof for e in entries_with("proof") if e.spec.proof is not None}
    defaults = ", ".join(
        f"{key}: {'all' if proof.test_items < 0 else proof.test_items}"
        for key, proof in proofs.items()
    )
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default=next(iter(proofs), None), choices=list(proofs),
                        help="an environment with a proof task (its spec's `proof`)")  # fmt: skip
    parser.add_argument("--sft-config", type=Path, default=None)
    parser.add_argument("--rl-config", type=Path, default=None)
    parser.add_argument("--algorithm", choices=["grpo", "expert_iteration"], default=None,
                        help="RL algorithm (default: the RL recipe's)")  # fmt: skip
    parser.add_argument("--rl-steps", type=int, default=None, help="cap every RL stage")
    parser.add_argument(
        "-n",
        "--num-examples",
        type=int,
        default=None,
        help=f"test items (-1: all; default: the environment's, {defaults})",
    )
    parser.add_argument("--real-n", type=int, default=200, help="real-data items (-1: all)")
    parser.add_argument("--prompt-style", default="compact", choices=["default", "compact"])
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--eval-backend", choices=["llama", "hf"], default="llama",
                        help="llama: GGUF exports in llama.cpp; hf: transformers")  # fmt: skip
    parser.add_argument("--eval-jobs", type=int, default=None,
                        help="evals at once, sharing threads (default: 1 per CPU)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help="default outputs/proof/<env>")
    parser.add_argument("--smoke", action="store_true", help="tiny stages: plumbing check")
    parser.add_argument("--low-memory", action="store_true",
                        help="SFT and expert-iteration batches of 2 x grad_accum 4, expert "
                             "iteration with activation checkpointing (E4: peaks under 3 GB, "
                             "slower)")  # fmt: skip
    parser.add_argument("--set-sft", action="append", default=[], help="extra --set for SFT")
    parser.add_argument("--set-rl", action="append", default=[], help="extra --set for RL")
    parser.add_argument("--sft-checkpoint", type=Path, default=None,
                        help="reuse a finished SFT checkpoint (no SFT stage)")  # fmt: skip
    parser.add_argument("--rl-checkpoint", type=Path, default=None,
                        help="reuse a finished RL checkpoint (no RL stage)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.eval_jobs is not None and args.eval_jobs < 1:
        parser.error(f"--eval-jobs {args.eval_jobs}: expected a whole number >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    from security_verifiers.environments import resolve_env

    args = parse_args(argv)
    env = args.env
    task = resolve_env(env).spec.proof
    if task is None:  # --env offers only environments with one
        raise SystemExit(f"--env {env}: no proof task in its spec")
    out = (args.out or Path("outputs/proof") / env).resolve()
    out.mkdir(parents=True, exist_ok=True)
    ckpt_root = out / "checkpoints"
    stages = Stages(out, args.threads)
    sv = sv_command()
    sft_config = args.sft_config or Path(f"configs/sft/{env}.yaml")
    rl_config = args.rl_config or Path(f"configs/rlft/{env}.yaml")
    threads = [f"threads={args.threads}"] if args.threads else []
    n = task.test_items if args.num_examples is None else args.num_examples
    real_n, rl_steps = args.real_n, args.rl_steps
    low_sft, low_rl = (LOW_MEMORY_SFT, LOW_MEMORY_RL) if args.low_memory else ((), ())
    sft_sets = [f"data.env_args.prompt_style={args.prompt_style}", *threads, *low_sft,
                *args.set_sft]  # fmt: skip
    rl_sets = [f"envs.{env}.env_args.prompt_style={args.prompt_style}", *threads, *low_rl,
               *args.set_rl]  # fmt: skip
    if args.algorithm:
        rl_sets.append(f"algorithm={args.algorithm}")
    sft_steps: list[str] = []
    if args.smoke:
        n, real_n, rl_steps = smoke_items(n), smoke_items(real_n), 1
        sft_sets += ["data.max_examples=8", "train.batch_size=2", "train.logging_steps=1",
                     "save_merged=true"]  # fmt: skip
        sft_steps = ["--max-steps", "2"]
        rl_sets += ["expert_iteration.prompts=2", "expert_iteration.k=2",
                    "expert_iteration.sft_steps=1", "expert_iteration.batch_size=2",
                    "expert_iteration.select_items=2",
                    "grpo.num_generations=2", "grpo.prompts_per_step=1"]  # fmt: skip

    def sets(pairs: list[str]) -> list[str]:
        return [part for pair in pairs for part in ("--set", pair)]

    if args.sft_checkpoint:
        sft = str(reused_checkpoint(args.sft_checkpoint, "--sft-checkpoint"))
        print(f"[sft] reusing {sft}", file=sys.stderr, flush=True)
    else:
        sft = stages.run("sft", [*sv, "train", "sft", "--config", str(sft_config),
                                 "--output-root", str(ckpt_root), *sft_steps,
                                 *sets(sft_sets)])  # fmt: skip
    if args.rl_checkpoint:
        rl = str(reused_checkpoint(args.rl_checkpoint, "--rl-checkpoint"))
        print(f"[rl] reusing {rl}", file=sys.stderr, flush=True)
    else:
        rl = stages.run("rl", [*sv, "train", "rl", "--config", str(rl_config), "--model", sft,
                               "--output-root", str(ckpt_root), *sets(rl_sets),
                               *(["--max-steps", str(rl_steps)] if rl_steps else [])])  # fmt: skip

    columns: dict[str, dict[str, Any]] = {
        "test": {"split": "test", "prompt_style": args.prompt_style}
    }
    real_path, real_args = task.real_path, task.real_env_args
    if (REPO / real_path).exists():
        columns["real"] = {**real_args, "path": real_path, "prompt_style": args.prompt_style}
    else:
        print(f"Notice: real-data column skipped ({real_path} not found)", file=sys.stderr)
    checkpoints = {"sft": sft, "rl": rl}
    rl_is_sft = kept_start(rl)
    if rl_is_sft:
        print("[rl] round selection kept the SFT adapter: the RL column reuses SFT's evals",
              file=sys.stderr, flush=True)  # fmt: skip
    base = base_eval_model(sft_config, args.eval_backend, stages, out)
    models = {"base": base} | {
        label: eval_model_name(ckpt, args.eval_backend, stages, label)
        for label, ckpt in checkpoints.items()
        if not (label == "rl" and rl_is_sft)
    }
    runs: dict[str, dict[str, str]] = {}
    tables: dict[str, str] = {}
    evals: dict[str, list[str]] = {}
    # longest first, so that no lane is left with a long eval at the end: the real-data
    # columns (longer prompts) before the test split, the base model (longer answers) first
    order = sorted(columns, key=lambda column: column == "test")
    for column in order:
        for label, model in models.items():
            count = n if column == "test" else real_n
            root = out / "evals" / column / label
            evals[f"eval-{column}-{label}"] = [
                *sv, "eval", env, "--models", model, "-n", str(count), "--seed", "42",
                "--max-tokens", str(task.max_tokens), "--truncated", "score", "--fresh", "--quiet",
                "--no-cache", "--output-dir", str(root), *env_arg_flags(columns[column]),
            ]  # fmt: skip
            runs.setdefault(column, {})[label] = str(root)
    cpus = args.threads or len(os.sched_getaffinity(0))
    jobs = max(1, min(args.eval_jobs or cpus, cpus, len(evals)))
    stages.timings["evals_wall"] = stages.run_all(evals, jobs, cpus)
    for column in columns:
        runs[column] = {label: str(run_dir(Path(root))) for label, root in runs[column].items()}
        if rl_is_sft:
            runs[column]["rl"] = runs[column]["sft"]
        table_path = out / f"table-{column}.md"
        stages.run(f"compare-{column}", [
            sys.executable, "-m", "security_verifiers.training.compare",
            *runs[column].values(), "--labels", ",".join(runs[column]), "--out", str(table_path),
        ])  # fmt: skip
        tables[column] = table_path.read_text()
    summary = {"env": env, "prompt_style": args.prompt_style, "smoke": args.smoke,
               "checkpoints": checkpoints, "eval_backend": args.eval_backend,
               "eval_models": models, "eval_runs": runs,
               "timings_s": stages.timings, "eval_jobs": jobs, "n": n, "real_n": real_n,
               "llama_cpu_features": llama_cpu_features(),
               "low_memory": args.low_memory,
               "peak_rss_mb": {label: peak_rss_mb(ckpt) for label, ckpt in checkpoints.items()},
               "sft_reused": bool(args.sft_checkpoint),
               "rl_reused": bool(args.rl_checkpoint),
               "rl_evals_from_sft": rl_is_sft}  # fmt: skip
    (out / "proof.json").write_text(json.dumps(summary, indent=2) + "\n")
    text = "".join(f"## {column}\n\n{table}\n" for column, table in tables.items())
    (out / "table.md").write_text(text)
    print(text)
    print(json.dumps(stages.timings, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
