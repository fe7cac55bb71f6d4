"""The short dataset card (README.md) written next to every built dataset."""

from __future__ import annotations

from typing import Any


def _counts_table(splits: dict[str, Any]) -> list[str]:
    labels = sorted({label for s in splits.values() for label in s.get("labels", {})})
    lines = ["| split | rows | groups | " + " | ".join(labels) + " |"]
    lines.append("|---" * (3 + len(labels)) + "|")
    for name, s in splits.items():
        cells = [str(s.get("labels", {}).get(label, 0)) for label in labels]
        lines.append(f"| {name} | {s['n']} | {s['groups']} | " + " | ".join(cells) + " |")
    return lines


def dataset_card(metadata: dict[str, Any]) -> str:
    """Markdown: what it is, where it came from, how it was split and checked."""
    sources = metadata["sources"]
    contamination = metadata["contamination"]
    dedup = metadata["dedup"]
    validation = metadata["validation"]
    lines = [
        f"# {metadata['env_id']} dataset {metadata['build']}",
        "",
        metadata.get("description", ""),
        "",
        "## Provenance",
        "",
    ]
    for source in sources:
        lines.append(
            f"- source `{source['name']}` from {source['origin']} "
            f"(licence: {source['license']}; revision {source['revision'] or 'n/a'})"
        )
    versions = ", ".join(f"{k} {v}" for k, v in metadata["versions"].items())
    lines += [
        f"- versions: {versions}",
        f"- seed {metadata['seed']}; split fractions {metadata['fractions']}",
        f"- code: {metadata.get('code', {}).get('commit') or 'unknown commit'}",
        "",
        "## Splits",
        "",
        *_counts_table(metadata["splits"]),
        "",
        "Splits are grouped (a group never spans two splits) and stratified by label and scenario.",
        "",
        "## Checks",
        "",
        f"- schema: {validation['rows_in']} rows in, {validation['invalid']} invalid, "
        f"{validation['duplicate_ids']} duplicate ids (row type "
        f"`{metadata['row_schema']['type']}`)",
        f"- duplicates removed: {dedup['exact_duplicates_removed']} exact, "
        f"{dedup['near_duplicates_removed']} near (MinHash Jaccard ≥ {dedup['threshold']})",
        f"- cross-split contamination: {'none' if contamination['clean'] else 'FOUND'}",
    ]
    for pair, found in contamination["pairs"].items():
        lines.append(
            f"  - {pair}: {found['shared_groups']} shared groups, {found['exact']} exact, "
            f"{found['near']} near duplicates"
        )
    lines += [
        "",
        "Files: `train.jsonl`, `dev.jsonl`, `test.jsonl`, `rejected.jsonl`, `metadata.json`.",
        "",
    ]
    return "\n".join(lines)
