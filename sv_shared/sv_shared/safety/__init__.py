"""Safety judging for the red-team environments (E5 attack, E6 defense).

``build_judge(spec)`` gives a cached :class:`SafetyJudge`: ``"offline"`` (shipped, no
downloads), ``"learned"`` (the offline request model times the learned reply-outcome model,
:func:`assess_reply`), ``"llama-guard@<base_url>[#model]"`` (Llama Guard 3 behind an
OpenAI-compatible endpoint) or ``"harmbench@<base_url>[#model]"`` (a HarmBench-classifier-style
prompt for any chat endpoint). :func:`detect_refusal` classifies assistant replies;
:func:`redact_conversation` keeps judge-flagged unsafe text out of stored artifacts.
"""

from __future__ import annotations

from pathlib import Path

from sv_shared.safety.cache import CachedJudge, VerdictCache, cache_key
from sv_shared.safety.categories import CATEGORIES, parse_categories
from sv_shared.safety.endpoint import JudgeEndpointError
from sv_shared.safety.lexicon import tag_categories
from sv_shared.safety.redaction import redact_conversation, sha256_text
from sv_shared.safety.refusal import RefusalResult, detect_refusal
from sv_shared.safety.reply_model import ReplyAssessment, assess_reply
from sv_shared.safety.types import JudgeError, Message, SafetyJudge, Verdict

__all__ = [
    "CATEGORIES",
    "CachedJudge",
    "JudgeEndpointError",
    "JudgeError",
    "Message",
    "RefusalResult",
    "ReplyAssessment",
    "SafetyJudge",
    "Verdict",
    "VerdictCache",
    "assess_reply",
    "build_judge",
    "cache_key",
    "detect_refusal",
    "parse_categories",
    "redact_conversation",
    "sha256_text",
    "tag_categories",
]

_ENDPOINT_BACKENDS = ("llama-guard", "harmbench")


def _parse_spec(spec: str) -> tuple[str, str | None, str | None]:
    """ "kind@base_url#model" -> (kind, base_url, model)."""
    kind, _, rest = spec.strip().partition("@")
    kind = kind.strip().lower()
    if kind in ("offline", "learned") and not rest:
        return kind, None, None
    if kind not in _ENDPOINT_BACKENDS:
        raise JudgeError(
            f"unknown judge {spec!r}; use 'offline', 'learned', 'llama-guard@<base_url>[#model]' "
            "or 'harmbench@<base_url>[#model]'"
        )
    base_url, _, model = rest.partition("#")
    if not base_url.startswith(("http://", "https://")):
        raise JudgeError(f"judge {spec!r}: expected an http(s) base URL after '@'")
    return kind, base_url, model or None


def build_judge(
    spec: str = "offline",
    cache_dir: str | Path | None = None,
    *,
    api_key_env: str | None = None,
    timeout_s: float = 60.0,
    max_retries: int = 2,
) -> SafetyJudge:
    """A judge for ``spec`` whose verdicts are cached in memory (and under ``cache_dir``).

    ``api_key_env`` names the environment variable holding the endpoint's API key (local
    servers need none); ``timeout_s`` and ``max_retries`` apply to endpoint requests.
    """
    kind, base_url, model = _parse_spec(spec)
    judge: SafetyJudge
    if kind == "offline":
        from sv_shared.safety.offline import OfflineJudge

        judge = OfflineJudge()
        model_id = judge.model_id
    elif kind == "learned":
        from sv_shared.safety.learned import LearnedJudge

        judge = LearnedJudge()
        model_id = judge.model_id
    elif kind == "llama-guard":
        from sv_shared.safety.llama_guard import LlamaGuardJudge

        assert base_url is not None  # _parse_spec gives every endpoint kind a URL
        judge = LlamaGuardJudge(
            base_url,
            model,
            api_key_env=api_key_env,
            timeout_s=timeout_s,
            max_retries=max_retries,
        )
        model_id = model or "default"
    else:
        from sv_shared.safety.harmbench import HarmBenchJudge

        assert base_url is not None  # _parse_spec gives every endpoint kind a URL
        judge = HarmBenchJudge(
            base_url,
            model,
            api_key_env=api_key_env,
            timeout_s=timeout_s,
            max_retries=max_retries,
        )
        model_id = model or "default"
    backend_id = f"{kind}@{base_url}" if base_url else kind
    return CachedJudge(judge, backend_id, model_id, VerdictCache(cache_dir))
