"""Export a trained llama-architecture checkpoint to GGUF, so llama.cpp can run it.

transformers runs SmolLM2-135M at ~14 tokens/s on a small CPU, llama.cpp at ~90; evaluation and
expert-iteration sampling therefore run exported checkpoints in llama.cpp.

Every metadata key (architecture parameters, tokenizer, chat template) is copied from the GGUF
the checkpoint descends from — followed through `sv_checkpoint.json` (RL -> SFT -> base), the
shipped SmolLM2 when nothing else is recorded — after checking that the checkpoint's shapes
match it. The tensors are written under llama.cpp's names with the inverse of what
transformers does when it loads a llama GGUF: the Q/K rows are permuted back into llama.cpp's
rotary layout (`LlamaTensorProcessor._reverse_permute_weights`), and a tied `lm_head` is left
out (llama.cpp reuses `token_embd`, as the base file does).

    python -m security_verifiers.training.export_gguf <checkpoint> [--out F] [--type f16]

prints the GGUF path; by default `<checkpoint>/model.gguf`, rebuilt when older than the weights
or of another tensor type.
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from security_verifiers.errors import UserError
from security_verifiers.models.hf_checkpoint import (
    CHECKPOINT_MARKER,
    CheckpointRef,
    resolve_checkpoint,
)
from security_verifiers.models.local_gguf import DEFAULT_LOCAL_MODEL

GGUF_NAME = "model.gguf"
TENSOR_TYPES = ("f32", "f16", "bf16", "q8_0")
DEFAULT_TYPE = "f16"
"""Measured on an SFT'd SmolLM2-135M, 2 CPU cores (docs/training.md): f16 ~50 tokens/s with
greedy answers equal to transformers' on 6/6 E1 prompts; q8_0 ~10% faster but 3/6 equal;
f32 ~36 tokens/s (transformers: ~14)."""
#: (HF config attribute, GGUF key suffix) pairs that must agree with the base GGUF.
SHAPE_KEYS = (
    ("hidden_size", "embedding_length"),
    ("num_hidden_layers", "block_count"),
    ("intermediate_size", "feed_forward_length"),
    ("num_attention_heads", "attention.head_count"),
    ("num_key_value_heads", "attention.head_count_kv"),
)


def _types(tensor_type: str) -> tuple[Any, Any]:
    """(ggml tensor type, GGUF `general.file_type`) of a `TENSOR_TYPES` name."""
    import gguf

    if tensor_type not in TENSOR_TYPES:
        raise UserError(f"tensor type '{tensor_type}': expected one of {', '.join(TENSOR_TYPES)}")
    q, f = gguf.GGMLQuantizationType, gguf.LlamaFileType
    return {
        "f32": (q.F32, f.ALL_F32),
        "f16": (q.F16, f.MOSTLY_F16),
        "bf16": (q.BF16, f.MOSTLY_BF16),
        "q8_0": (q.Q8_0, f.MOSTLY_Q8_0),
    }[tensor_type]


def base_gguf(described: Mapping[str, Any] | None) -> Path | None:
    """The GGUF file a model descends from, given its `CheckpointRef.describe()`; None if none
    is recorded. Follows `sv train` checkpoints back through their own `base_model`."""
    if not described:
        return None
    kind, location = described.get("kind"), Path(str(described.get("location", "")))
    if kind == "gguf":
        try:  # built-in names are re-resolved: the recorded path may be another machine's
            return Path(resolve_checkpoint(str(described["spec"])).location)
        except UserError:
            return location if location.is_file() else None
    if kind == "peft":
        return base_gguf(described.get("base"))
    for root in (location, location.parent):
        if (root / CHECKPOINT_MARKER).is_file():
            return base_gguf(json.loads((root / CHECKPOINT_MARKER).read_text()).get("base_model"))
    return None


def default_base() -> Path:
    return Path(resolve_checkpoint(DEFAULT_LOCAL_MODEL).location)


def _read_gguf(path: Path) -> tuple[Any, dict[str, Any]]:
    from gguf import GGUFReader

    reader = GGUFReader(path)
    values = {k: f.contents() for k, f in reader.fields.items() if not k.startswith("GGUF.")}
    return reader, values


@functools.lru_cache(maxsize=4)
def _read_base(path: Path, stamp: tuple[int, int]) -> tuple[Any, dict[str, Any]]:
    """A base GGUF's reader and metadata, parsed once per file version (parsing its 49k-token
    vocabulary takes seconds; expert iteration exports every round)."""
    return _read_gguf(path)


def read_base(path: Path) -> tuple[Any, dict[str, Any]]:
    stat = path.stat()
    return _read_base(path.resolve(), (stat.st_size, stat.st_mtime_ns))


def check_compatible(config: Any, values: Mapping[str, Any], base: Path) -> None:
    """A UserError unless `config` (an HF LlamaConfig) has the base GGUF's shapes."""
    model_type = getattr(config, "model_type", None)
    if model_type != "llama":
        raise UserError(f"GGUF export supports llama-architecture models only (got '{model_type}')")
    arch = values.get("general.architecture")
    if arch != "llama":
        raise UserError(f"base GGUF {base} is '{arch}', not llama")
    found = [(getattr(config, attr, None), values.get(f"llama.{key}")) for attr, key in SHAPE_KEYS]
    found.append((config.vocab_size, len(values.get("tokenizer.ggml.tokens") or ())))
    if any(a != b for a, b in found):
        raise UserError(
            f"the model does not match its base GGUF {base} (model vs base: {found}); "
            f"pass the GGUF it was trained from with --base"
        )


def export_problem(config: Any, base: Path | None = None) -> str | None:
    """Why a model with this config cannot be exported against `base` (default: the shipped
    SmolLM2), or None when it can."""
    try:
        base = base or default_base()  # a UserError where the shipped GGUF is not installed
        check_compatible(config, read_base(base)[1], base)
    except UserError as exc:
        return str(exc)
    return None


def permute_qk(weight: np.ndarray, n_head: int) -> np.ndarray:
    """HF -> llama.cpp rotary row order (the inverse of transformers' GGUF reverse permute)."""
    dim = weight.shape[0] // n_head // 2
    w = weight.reshape(n_head, 2, dim, *weight.shape[1:])
    return w.swapaxes(1, 2).reshape(weight.shape)


def llama_tensors(state_dict: Mapping[str, Any], config: Any) -> Iterator[tuple[str, np.ndarray]]:
    """(llama.cpp name, float32 array) for every weight of an HF LlamaForCausalLM state dict."""
    import gguf

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, config.num_hidden_layers)
    embed = state_dict["model.embed_tokens.weight"]
    for hf_name, tensor in state_dict.items():
        if hf_name.endswith("rotary_emb.inv_freq"):
            continue
        if hf_name == "lm_head.weight" and (
            getattr(config, "tie_word_embeddings", False) or tensor.data_ptr() == embed.data_ptr()
        ):
            continue  # tied: llama.cpp reads the output matrix from token_embd
        stem, _, suffix = hf_name.rpartition(".")
        name = names.get_name(stem)
        if name is None:
            raise UserError(f"no llama.cpp name for tensor '{hf_name}'")
        array = tensor.detach().float().cpu().numpy()
        if name.endswith(".attn_q"):
            array = permute_qk(array, config.num_attention_heads)
        elif name.endswith(".attn_k"):
            array = permute_qk(array, config.num_key_value_heads)
        yield f"{name}.{suffix}", np.ascontiguousarray(array)


def write_gguf(
    state_dict: Mapping[str, Any],
    config: Any,
    out: Path,
    *,
    base: Path | None = None,
    tensor_type: str = DEFAULT_TYPE,
) -> Path:
    """Write `state_dict` (an HF llama model's) as GGUF at `out` (atomically); returns `out`."""
    import gguf

    qtype, file_type = _types(tensor_type)
    base = base or default_base()
    reader, values = read_base(base)
    check_compatible(config, values, base)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    writer = gguf.GGUFWriter(str(tmp), arch="llama")
    try:
        for key, field in reader.fields.items():
            if key.startswith("GGUF.") or key in ("general.architecture", "general.file_type"):
                continue
            sub_type = field.types[-1] if field.types[0] == gguf.GGUFValueType.ARRAY else None
            writer.add_key_value(key, values[key], field.types[0], sub_type)
        writer.add_file_type(file_type)
        for name, array in llama_tensors(state_dict, config):
            # norms stay F32 (as llama.cpp's converter does); rows must fill Q8_0 blocks
            if array.ndim == 1 or qtype == gguf.GGMLQuantizationType.F32:
                writer.add_tensor(name, array.astype(np.float32))
            elif qtype == gguf.GGMLQuantizationType.F16 or (
                qtype == gguf.GGMLQuantizationType.Q8_0 and array.shape[-1] % 32
            ):
                writer.add_tensor(name, array.astype(np.float16))
            else:
                writer.add_tensor(name, gguf.quants.quantize(array, qtype), raw_dtype=qtype)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()
    tmp.replace(out)
    return out


def export_model(
    model: Any,
    out: Path,
    *,
    base: Path | None = None,
    tensor_type: str = DEFAULT_TYPE,
) -> Path:
    """Export an in-memory HF model; a PEFT model is merged into a copy first (the original is
    left as it is, adapters and all)."""
    if hasattr(model, "merge_and_unload"):
        model = copy.deepcopy(model).merge_and_unload()
    return write_gguf(model.state_dict(), model.config, out, base=base, tensor_type=tensor_type)


def _sources(ref: CheckpointRef) -> list[Path]:
    root = Path(ref.location)
    return [p for p in root.iterdir() if p.is_file()] if root.is_dir() else [root]


def _current(out: Path, sources: list[Path], tensor_type: str) -> bool:
    if not out.is_file() or any(p.stat().st_mtime > out.stat().st_mtime for p in sources):
        return False
    try:
        _, values = _read_gguf(out)
    except Exception:  # a truncated or foreign file: rebuild it
        return False
    return values.get("general.file_type") == int(_types(tensor_type)[1])


def export_checkpoint(
    spec: str | Path,
    out: Path | None = None,
    *,
    tensor_type: str = DEFAULT_TYPE,
    base: Path | None = None,
) -> Path:
    """The GGUF of a checkpoint (`sv train` directory, model directory or adapter), exported
    unless the cached `<checkpoint>/model.gguf` (or `out`) is current."""
    from security_verifiers.models.hf_checkpoint import load_causal_lm
    from security_verifiers.training.model_cache import loadable

    ref = resolve_checkpoint(str(spec))
    if ref.kind == "hub":
        raise UserError(f"checkpoint not found: {spec}")
    path = Path(ref.location)
    if ref.kind != "gguf":  # the checkpoint's root, not its model/ or adapter/ directory
        path = next((p for p in (path, path.parent) if (p / CHECKPOINT_MARKER).is_file()), path)
    if out is None:
        if ref.kind == "gguf":
            raise UserError(f"{spec} is already a GGUF model; pass --out to re-export it")
        out = path / GGUF_NAME
    if base is None:
        marker = path / CHECKPOINT_MARKER
        recorded = json.loads(marker.read_text()).get("base_model") if marker.is_file() else None
        base = base_gguf(recorded) or base_gguf(ref.describe()) or default_base()
    if _current(out, _sources(ref), tensor_type):
        return out
    config_path = Path(ref.location) / "config.json"
    if ref.kind == "hf_dir" and config_path.is_file():
        model_type = json.loads(config_path.read_text()).get("model_type")
        if model_type != "llama":
            raise UserError(f"GGUF export supports llama-architecture models only "
                            f"(got '{model_type}')")  # fmt: skip
    model = load_causal_lm(loadable(ref), dtype="float32")
    return export_model(model, out, base=base, tensor_type=tensor_type)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="sv train checkpoint, model directory or adapter")
    parser.add_argument("--out", type=Path, default=None, help=f"default <checkpoint>/{GGUF_NAME}")
    parser.add_argument("--type", dest="tensor_type", default=DEFAULT_TYPE, choices=TENSOR_TYPES)
    parser.add_argument("--base", type=Path, default=None, help="GGUF to copy metadata from")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        out = export_checkpoint(args.checkpoint, args.out, tensor_type=args.tensor_type,
                                base=args.base)  # fmt: skip
    except UserError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    print(f"exported in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
