"""`sv` reads ./.env at start: variables not set already are set (an endpoint, an API key);
values are never printed or stored; SV_NO_DOTENV=1 skips the file.

`sv eval` runs in this process (`sv_main`: `security_verifiers.cli.main` in the given folder,
as a fresh `sv` would), and the environment is restored after each command, so what a .env
set does not reach later commands or tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from security_verifiers.env_file import load_env_file
from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.serving import PolicyServer, serve_in_thread

SECRET = "sk-dotenv-test-0123456789abcdef"
CLEARED = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SV_NO_DOTENV", "SV_DOTENV_TEST")


@pytest.fixture
def sv_eval(sv_main):
    """`sv_eval(cwd, *args, **extra_env)`: `sv eval e1 -n 3` run in `cwd`."""

    def run(cwd: Path, *args: str, **extra_env: str):
        return sv_main("eval", "e1", "-n", "3", "--output-dir", "out", "--quiet", *args,
                       cwd=cwd, env=extra_env, unset=CLEARED)  # fmt: skip

    return run


def every_file_text(folder: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


def test_dotenv_endpoint_and_key_are_used_and_never_stored(sv_eval, tmp_path: Path) -> None:
    server = PolicyServer(baseline_policies(resolve_env("e1"))["heuristic"], "m")
    with serve_in_thread(server) as base_url:
        (tmp_path / ".env").write_text(
            f"# endpoint and key for sv\nOPENAI_BASE_URL={base_url}\nOPENAI_API_KEY='{SECRET}'\n"
        )
        result = sv_eval(tmp_path, "--models", "m")
        assert result.returncode == 0, result.stderr
        assert server.stats.requests >= 3  # `m` resolved against the .env's OPENAI_BASE_URL
    [run_dir] = list((tmp_path / "out").glob("*/*/"))
    assert (run_dir / "metadata.json").is_file()
    assert SECRET not in every_file_text(tmp_path / "out")
    assert SECRET not in result.stdout + result.stderr


def test_variables_already_set_win_and_sv_no_dotenv_skips_the_file(sv_eval, tmp_path: Path) -> None:
    server = PolicyServer(baseline_policies(resolve_env("e1"))["heuristic"], "m")
    with serve_in_thread(server) as base_url:
        (tmp_path / ".env").write_text("OPENAI_BASE_URL=http://127.0.0.1:9/v1\n")
        kept = sv_eval(tmp_path, "--models", "m", OPENAI_BASE_URL=base_url)
        assert kept.returncode == 0, kept.stderr  # the environment's URL, not the file's
        (tmp_path / ".env").write_text(f"OPENAI_BASE_URL={base_url}\n")
        skipped = sv_eval(tmp_path, "--models", "m", "--fresh", SV_NO_DOTENV="1")
    assert skipped.returncode == 2  # no endpoint and no key: one line, as without a .env
    assert len(skipped.stderr.strip().splitlines()) == 1 and "OPENAI" in skipped.stderr


def test_load_env_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CLEARED:
        monkeypatch.delenv(name, raising=False)
    assert load_env_file(tmp_path) is None  # no file: nothing to do
    (tmp_path / ".env").write_text("SV_DOTENV_TEST=from-file\nexport OPENAI_BASE_URL=x\n")
    monkeypatch.setenv("OPENAI_BASE_URL", "already-set")
    assert load_env_file(tmp_path) == tmp_path / ".env"
    assert os.environ["SV_DOTENV_TEST"] == "from-file"
    assert os.environ["OPENAI_BASE_URL"] == "already-set"
    monkeypatch.delenv("SV_DOTENV_TEST")
    monkeypatch.setenv("SV_NO_DOTENV", "1")
    assert load_env_file(tmp_path) is None and "SV_DOTENV_TEST" not in os.environ
    monkeypatch.delenv("SV_NO_DOTENV")
    (tmp_path / ".env").write_bytes(b"SV_DOTENV_TEST=\xff\xfe\n")
    with pytest.raises(UserError, match=r"\.env: not UTF-8 text"):
        load_env_file(tmp_path)
