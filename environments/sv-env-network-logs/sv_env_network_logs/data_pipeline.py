"""E1's part of the dataset pipeline: sources, facets and the synthetic-data recipe.

Synthetic candidates are Zeek conn records written by a model for a requested scenario. The
label comes from the environment's rule oracle (the heuristic analyst); a candidate is kept
only when the oracle commits to a label and that label matches the requested scenario's
class — so accepted rows are ones the oracle can vouch for, a bias stated in the metadata.
"""

from __future__ import annotations

import random
import re
from typing import Any

from pydantic import ValidationError

from sv_env_network_logs.dataset import ENV_ID, SOURCES, load_flows
from sv_env_network_logs.flows import Flow, LabeledFlow
from sv_env_network_logs.generator import (
    ATTACK_SCENARIOS,
    BENIGN_SCENARIOS,
    GENERATOR_VERSION,
    NoiseConfig,
    generate_flows,
)
from sv_env_network_logs.heuristic import heuristic_predict
from sv_env_network_logs.loaders import describe_validation_error
from sv_env_network_logs.prompts import RENDER_FIELDS, parse_rendered_flow, render_flow
from sv_env_network_logs.reward import LABELS
from sv_shared import data as sv_data

ORACLE_VERSION = "heuristic-v2"
SYNTH_EXAMPLES_PER_TEMPLATE = 1
_KEYS = dict(RENDER_FIELDS)
_LINE = re.compile(r"^\s*[-*]?\s*`?([a-z_.]+)`?\s*[:=]\s*(.+?)\s*,?\s*$")


def facets(item: LabeledFlow) -> sv_data.Facets:
    return sv_data.Facets(
        label=item.label, scenario=item.scenario, group=item.group, text=render_flow(item.flow)
    )


def _source(name: str):
    def load(request: sv_data.SourceRequest) -> sv_data.SourceData:
        options = dict(request.options)
        kwargs: dict[str, Any] = {"path": request.path, "split": "all", "seed": request.seed}
        if name == "synthetic" and "size" in options:
            kwargs["size"] = int(options.pop("size"))
        if "include_background" in options:
            kwargs["include_background"] = options.pop("include_background") in ("1", "true")
        if options:
            raise ValueError(f"unknown option(s) for {name}: {', '.join(options)}")
        items, info = load_flows(name, **kwargs)
        return sv_data.SourceData(
            rows=items,
            name=name,
            license=info.license,
            origin=info.path or "generated",
            revision=info.revision,
            notes={"skipped_rows": info.skipped, "excluded": info.excluded},
        )

    return load


# ---------------------------------------------------------------------------- synthetic data
def _example_pool(seed: int) -> dict[str, list[LabeledFlow]]:
    pool: dict[str, list[LabeledFlow]] = {}
    for item in generate_flows(400, seed=seed + 7, noise=NoiseConfig()):
        pool.setdefault(item.scenario, []).append(item)
    return pool


def synth_seeds(seed: int) -> list[sv_data.SynthSeed]:
    """One template per scenario, each showing generator flows of that scenario as examples."""
    pool = _example_pool(seed)
    rng = random.Random(seed)
    seeds = []
    for scenario in (*BENIGN_SCENARIOS, *ATTACK_SCENARIOS):
        examples = rng.sample(pool[scenario], min(SYNTH_EXAMPLES_PER_TEMPLATE, len(pool[scenario])))
        shown = "\n\n".join(render_flow(e.flow) for e in examples)
        kind = "benign" if scenario.startswith("benign/") else "malicious"
        activity = scenario.split("/", 1)[1].replace("_", " ")
        messages = [
            {
                "role": "system",
                "content": "You write realistic Zeek conn.log records for a network-security "
                "training set. Reply with exactly one fenced zeek-conn block of key: value lines "
                "using the same keys as the examples, and nothing else.",
            },
            {
                "role": "user",
                "content": f"Scenario: {kind} traffic, {activity}.\n\nExample:\n\n{shown}\n\n"
                "Write one new record for this scenario in exactly this format: change the "
                "addresses, ports, timestamp, uid and byte counts to new values that fit the "
                "activity. Start your reply with ```zeek-conn",
            },
        ]
        seeds.append(
            sv_data.SynthSeed(
                id=scenario,
                messages=messages,
                target={
                    "scenario": scenario,
                    "label": "Benign" if kind == "benign" else "Malicious",
                },
                max_tokens=320,
                example_texts=tuple(render_flow(e.flow) for e in examples),
            )
        )
    return seeds


def parse_candidate_flow(text: str) -> Flow:
    """The flow in a completion: a well-formed block, or else its known ``key: value`` lines."""
    flow = parse_rendered_flow(text)
    if flow is not None:
        return flow
    fields: dict[str, str] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match and match.group(1) in _KEYS:
            fields.setdefault(_KEYS[match.group(1)], match.group(2).strip().strip("`\"'"))
    if not {"src_ip", "dst_ip", "proto"} <= fields.keys():
        raise sv_data.Rejected("schema", "no zeek-conn record with id.orig_h, id.resp_h and proto")
    try:
        return Flow(**fields)
    except ValidationError as exc:
        raise sv_data.Rejected(
            "schema", f"invalid flow: {describe_validation_error(exc)}"
        ) from None


def synth_parse(template: sv_data.SynthSeed, completion: str, row_id: str) -> LabeledFlow:
    flow = parse_candidate_flow(completion)
    return LabeledFlow(
        id=row_id,
        flow=flow,
        label=template.target["label"],
        scenario=template.target["scenario"],
        group=f"synth/{template.id}",
        source="synth",
    )


def synth_verify(template: sv_data.SynthSeed, row: LabeledFlow) -> LabeledFlow:
    """Label with the rule oracle; reject when it abstains or contradicts the scenario."""
    label, confidence, rationale = heuristic_predict(row.flow)
    if label == "Abstain":
        raise sv_data.Rejected("verify", f"oracle abstains ({rationale})")
    if label != template.target["label"]:
        raise sv_data.Rejected(
            "verify", f"oracle says {label} ({rationale}); template asked for {template.id}"
        )
    return row.model_copy(update={"label": label, "detailed_label": f"oracle:{confidence}"})


def data_adapter() -> sv_data.DataAdapter:
    return sv_data.DataAdapter(
        env_id=ENV_ID,
        row_type=LabeledFlow,
        sources={name: _source(name) for name in SOURCES},
        facets=facets,
        versions=lambda: {"generator": GENERATOR_VERSION, "verifier": ORACLE_VERSION},
        description="Single network flows (Zeek conn.log records) labelled Benign or "
        "Malicious, with the scenario (benign activity or attack playbook) and the session "
        "group. Groups are playbook runs or IP pairs, so a session never crosses splits.",
        default_source="synthetic",
        labels=LABELS[:2],
        synth=sv_data.SynthRecipe(
            seeds=synth_seeds,
            parse=synth_parse,
            verify=synth_verify,
            verifier=f"rule oracle {ORACLE_VERSION} (heuristic_predict): keeps candidates whose "
            "oracle label matches the requested scenario's class",
        ),
    )
