"""Is the gold label readable from a model's hidden state where it writes the label?

`python -m security_verifiers.training.label_probe --model <ckpt|smollm2-135m> --env e1`
runs the model (frozen, no generation) on training-split and test-split prompts, each followed
by the answer's opening (`{"label": "`, the prefix the SFT answers start with), takes the
hidden state of the last token at a few depths, fits a logistic regression on the training
rows and reports its test accuracy next to the majority class and the model's own next-token
choice between the label words.

It separates two failures of SFT: a high probe accuracy with a constant next-token choice
means the information is there and the fine-tuning did not reach it (optimisation); a probe
at the majority rate means the model's features do not expose the label at all.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from security_verifiers.training.decision_tokens import answer_prefix_ids
from sv_shared.spec import LoadedEnvInfo


def gold_label(row: dict[str, Any]) -> str:
    return str(row.get("answer") or "").strip()


def encode(tokenizer: Any, row: dict[str, Any]) -> list[int]:
    """The chat prompt's ids plus the answer's opening (the label comes next)."""
    from security_verifiers.models.hf_generation import chat_prompt_ids

    return chat_prompt_ids(tokenizer, row["prompt"]) + answer_prefix_ids(tokenizer)


def features(
    model: Any, tokenizer: Any, rows: list[dict[str, Any]], layers: list[int], labels: list[str]
) -> tuple[dict[int, list[list[float]]], list[str]]:
    """Last-token hidden states at `layers` and the model's preferred label word per row."""
    import torch

    first_ids = [tokenizer.encode(word, add_special_tokens=False)[0] for word in labels]
    states: dict[int, list[list[float]]] = {layer: [] for layer in layers}
    choices: list[str] = []
    with torch.no_grad():
        for row in rows:
            ids = torch.tensor([encode(tokenizer, row)])
            out = model(input_ids=ids, output_hidden_states=True)
            for layer in layers:
                states[layer].append(out.hidden_states[layer][0, -1].float().tolist())
            logits = out.logits[0, -1, first_ids]
            choices.append(labels[int(logits.argmax())])
    return states, choices


def answer_labels(info: LoadedEnvInfo) -> list[str]:
    """The labels a loaded classification environment answers with, less its abstain label,
    sorted (a fixed order: ties in the next-token choice go to the first)."""
    abstain = (info.reward_config or {}).get("abstain_label") or "Abstain"
    return sorted(label for label in info.labels or () if label != abstain)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    from security_verifiers.environments import entries_with

    keys = [entry.key for entry in entries_with("report")]  # classification environments
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="checkpoint dir, model dir or name")
    parser.add_argument("--env", default=next(iter(keys), None), choices=keys,
                        help="a classification environment (default: the first)")  # fmt: skip
    parser.add_argument("--train-n", type=int, default=600)
    parser.add_argument("--test-n", type=int, default=200)
    parser.add_argument("--prompt-style", default="compact", choices=["default", "compact"])
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None, help="write the result as JSON")
    args = parser.parse_args(argv)
    if args.train_n < 10 or args.test_n < 1:
        parser.error("--train-n must be at least 10 and --test-n at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from sklearn.linear_model import LogisticRegression

    from security_verifiers.models.hf_checkpoint import (
        load_causal_lm,
        load_tokenizer,
        resolve_checkpoint,
    )
    from security_verifiers.training.envs import load_training_env
    from security_verifiers.training.model_cache import loadable
    from security_verifiers.training.runtime import setup_runtime

    setup_runtime(args.threads, "float32")
    ref = loadable(resolve_checkpoint(args.model))
    tokenizer = load_tokenizer(ref)
    model = load_causal_lm(ref)
    envs = {
        split: load_training_env(args.env, {"split": split, "prompt_style": args.prompt_style})
        for split in ("train", "test")
    }
    labels = answer_labels(LoadedEnvInfo.of(envs["train"].env))
    split_rows = {
        split: [r for r in envs[split].rows if gold_label(r) in labels][:n]
        for split, n in (("train", args.train_n), ("test", args.test_n))
    }
    depth = model.config.num_hidden_layers
    layers = sorted({depth // 2, (3 * depth) // 4, depth})
    started = time.perf_counter()
    train_x, _ = features(model, tokenizer, split_rows["train"], layers, labels)
    test_x, test_choice = features(model, tokenizer, split_rows["test"], layers, labels)
    train_y = [gold_label(r) for r in split_rows["train"]]
    test_y = [gold_label(r) for r in split_rows["test"]]
    majority = Counter(train_y).most_common(1)[0][0]
    result: dict[str, Any] = {
        "model": args.model, "env": args.env, "prompt_style": args.prompt_style,
        "train_n": len(train_y), "test_n": len(test_y),
        "test_majority_accuracy": sum(y == majority for y in test_y) / len(test_y),
        "next_token_accuracy": sum(map(str.__eq__, test_choice, test_y)) / len(test_y),
        "next_token_choices": dict(Counter(test_choice)),
        "probe_accuracy": {},
    }  # fmt: skip
    for layer in layers:
        clf = LogisticRegression(max_iter=2000, C=1.0)
        clf.fit(train_x[layer], train_y)
        result["probe_accuracy"][f"layer{layer}"] = float(clf.score(test_x[layer], test_y))
    result["seconds"] = round(time.perf_counter() - started, 1)
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
