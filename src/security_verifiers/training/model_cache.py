"""GGUF base models, converted once to a safetensors directory for training.

transformers dequantises a GGUF file into dense tensors on every load, and the conversion
holds several copies of the weights at once: for SmolLM2-135M that alone pushed a training
process to ~5 GB resident before its first step. Training therefore loads GGUF models from a
one-time conversion (done in a child process, so its peak never counts against the trainer),
cached under `$SV_MODEL_CACHE` (default `~/.cache/security-verifiers/gguf-hf`) and keyed by the
GGUF file's path, size and mtime. Checkpoints still name the original spec (`smollm2-135m`)
as their base, so nothing machine-specific leaks into them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from security_verifiers.errors import UserError
from security_verifiers.models.hf_checkpoint import CheckpointRef


def cache_root() -> Path:
    env = os.environ.get("SV_MODEL_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "security-verifiers" / "gguf-hf"


def cache_dir_for(gguf: Path, slug: str, root: Path | None = None) -> Path:
    stat = gguf.stat()
    key = hashlib.sha256(f"{gguf.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return (root or cache_root()) / f"{slug}-{key.hexdigest()[:12]}"


def convert(gguf: Path, dest: Path) -> None:
    """Dequantise `gguf` into `dest` (config, safetensors weights, tokenizer), atomically."""
    from security_verifiers.models.hf_checkpoint import load_causal_lm, load_tokenizer

    ref = CheckpointRef(str(gguf), "gguf", str(gguf), dest.name)
    tokenizer = load_tokenizer(ref)
    model = load_causal_lm(ref, dtype="float32")
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists():  # another process won the race
        shutil.rmtree(tmp, ignore_errors=True)
        return
    tmp.rename(dest)


def loadable(ref: CheckpointRef, root: Path | None = None) -> CheckpointRef:
    """`ref`, with a GGUF model (or a GGUF base of an adapter) replaced by its cached
    safetensors conversion; other models are returned as they are."""
    if ref.kind == "peft" and ref.base is not None:
        return dataclasses.replace(ref, base=loadable(ref.base, root))
    if ref.kind != "gguf":
        return ref
    gguf = Path(ref.location)
    dest = cache_dir_for(gguf, ref.slug, root)
    if not (dest / "config.json").is_file():
        done = subprocess.run(
            [sys.executable, "-m", "security_verifiers.training.model_cache", str(gguf), str(dest)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0 or not (dest / "config.json").is_file():
            tail = "\n".join(done.stderr.strip().splitlines()[-5:])
            raise UserError(f"converting {gguf} for training failed:\n{tail}")
    return CheckpointRef(ref.spec, "hf_dir", str(dest), ref.slug)


if __name__ == "__main__":  # python -m security_verifiers.training.model_cache GGUF DEST
    convert(Path(sys.argv[1]), Path(sys.argv[2]))
