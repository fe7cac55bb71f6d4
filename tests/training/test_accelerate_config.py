"""The multi-GPU accelerate config parses, and the SFT trainer builds and steps under two
data-parallel processes on CPU (gloo) — the same code path DDP takes on GPUs.

`accelerate launch` starts CPU multi-process jobs only through mpirun, so the dry run uses
torchrun (what accelerate's multi-GPU launcher runs underneath); the trainer's accelerator
then reports MULTI_CPU with the gloo backend."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "configs" / "accelerate" / "multi_gpu.yaml"


def test_multi_gpu_config_is_valid() -> None:
    pytest.importorskip("accelerate")
    from accelerate.commands.config.config_args import ClusterConfig

    config = ClusterConfig.from_yaml_file(str(CONFIG))
    assert str(config.distributed_type) in ("MULTI_GPU", "DistributedType.MULTI_GPU")
    assert config.mixed_precision == "bf16" and config.num_processes >= 2
    assert config.use_cpu is False


def test_sft_trainer_builds_under_two_processes(tiny_model_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("accelerate")
    torchrun = shutil.which("torchrun") or str(Path(sys.executable).with_name("torchrun"))
    if not Path(torchrun).exists():
        pytest.skip("torchrun not found")
    script = Path(__file__).with_name("dist_sft_check.py")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = subprocess.run(
        [torchrun, "--nproc_per_node", "2", "--master_port", str(port), str(script),
         str(tiny_model_dir), str(tmp_path)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    ranks = [json.loads((tmp_path / f"rank{i}.json").read_text()) for i in range(2)]
    for report in ranks:
        assert report["num_processes"] == 2 and report["backend"] == "gloo"
        assert report["distributed_type"].endswith("MULTI_CPU")
        assert report["global_step"] == 1
        assert report["decision_logged"]  # the weighted loss ran through DDP's forward
