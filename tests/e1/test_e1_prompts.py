"""Rendering flows for the model, and parsing them back (used by built-in baselines)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sv_env_network_logs.dataset import build_default_dataset
from sv_env_network_logs.flows import Flow
from sv_env_network_logs.generator import NoiseConfig, generate_flows
from sv_env_network_logs.prompts import (
    FLOW_BLOCK_END,
    FLOW_BLOCK_START,
    SYSTEM_PROMPT,
    format_user_prompt,
    parse_rendered_flow,
    render_flow,
)


def test_system_prompt_states_schema_and_abstention():
    for needle in ('"label"', '"confidence"', '"rationale"', "Benign|Malicious|Abstain"):
        assert needle in SYSTEM_PROMPT
    assert "probability" in SYSTEM_PROMPT and "JSON" in SYSTEM_PROMPT
    assert "missed attack costs more" in SYSTEM_PROMPT


def test_rendering_is_a_fenced_block_of_zeek_keys_without_answer_leaks():
    for item in build_default_dataset()[:300]:
        text = render_flow(item.flow)
        lines = text.splitlines()
        assert lines[0] == FLOW_BLOCK_START and lines[-1] == FLOW_BLOCK_END
        assert all(": " in line for line in lines[1:-1])
        for secret in (item.id, item.group, item.scenario, item.source, item.label):
            assert secret not in text
        assert "None" not in text


def test_none_fields_are_omitted_and_booleans_are_zeek_style():
    flow = Flow(src_ip="10.0.0.1", dst_ip="10.0.0.2", proto="udp", local_orig=True, duration=9e-6)
    text = render_flow(flow)
    assert "local_orig: T" in text and "duration: 0.000009" in text
    assert "service" not in text and "id.orig_p" not in text


def test_default_dataset_round_trips_through_the_prompt():
    noisy = generate_flows(500, seed=9, noise=NoiseConfig(missing_field_rate=0.3))
    for item in [*build_default_dataset(), *noisy]:
        assert parse_rendered_flow(render_flow(item.flow)) == item.flow


def test_parse_finds_the_block_inside_a_prompt_and_rejects_garbage():
    flow = build_default_dataset()[0].flow
    prompt = "system text\n\n" + format_user_prompt(flow) + "\nAnswer in JSON."
    assert parse_rendered_flow(prompt) == flow
    assert parse_rendered_flow(SYSTEM_PROMPT + "\n" + render_flow(flow)) == flow
    prose = f"Blocks look like {FLOW_BLOCK_START} ... {FLOW_BLOCK_END}.\n" + render_flow(flow)
    assert parse_rendered_flow(prose) == flow
    broken = render_flow(flow).replace("id.resp_h: ", "id.resp_h: 999.")
    assert parse_rendered_flow(broken) is None
    broken_then_good = broken + "\n" + prose
    assert parse_rendered_flow(broken_then_good) == flow
    assert parse_rendered_flow("no block here") is None
    assert parse_rendered_flow(FLOW_BLOCK_START + "\nproto: tcp\n") is None  # unterminated
    bad_value = render_flow(flow).replace("proto: ", "proto: t c p\nx")
    assert parse_rendered_flow(bad_value) is None
    unknown_key = render_flow(flow).replace("proto:", "label:")
    assert parse_rendered_flow(unknown_key) is None


ips = st.one_of(st.ip_addresses(v=4), st.ip_addresses(v=6)).map(str)
ports = st.one_of(st.none(), st.integers(0, 65535))
counts = st.one_of(st.none(), st.integers(0, 10**12))
tokens = st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9^_,.-]{1,20}", fullmatch=True))
finite = st.floats(allow_nan=False, allow_infinity=False)
flows = st.builds(
    Flow,
    ts=st.one_of(st.none(), finite),
    uid=tokens,
    src_ip=ips,
    src_port=ports,
    dst_ip=ips,
    dst_port=ports,
    proto=st.sampled_from(["tcp", "udp", "icmp"]),
    service=tokens,
    duration=st.one_of(st.none(), st.floats(min_value=0, allow_infinity=False)),
    orig_bytes=counts,
    resp_bytes=counts,
    conn_state=tokens,
    history=tokens,
    orig_pkts=counts,
    resp_pkts=counts,
    orig_ip_bytes=counts,
    resp_ip_bytes=counts,
    local_orig=st.one_of(st.none(), st.booleans()),
    local_resp=st.one_of(st.none(), st.booleans()),
)


@settings(max_examples=200, deadline=None)
@given(flows)
def test_render_parse_round_trip_property(flow):
    assert parse_rendered_flow(render_flow(flow)) == flow
