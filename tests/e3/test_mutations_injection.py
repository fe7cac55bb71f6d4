"""Mutation operators for injection and trust weaknesses (mutations/injection.py and
mutations/serialization.py): each rewrites its pattern, keeps the module parseable and
refuses sources without the pattern."""

from __future__ import annotations

import ast
import textwrap

import pytest

from sv_env_code_vulnerability.mutations import OPERATORS, NotApplicable, strip_markers
from sv_env_code_vulnerability.mutations.serialization import fake_secret


def mutate(name: str, source: str) -> str:
    out = OPERATORS[name](textwrap.dedent(source))
    ast.parse(out)
    return out


NEW_OPERATORS = (
    "sql_format_params",
    "shell_string_command",
    "drop_escape",
    "literal_eval_to_eval",
    "json_to_pickle",
    "inline_secret",
)


@pytest.mark.parametrize("name", NEW_OPERATORS)
def test_operator_registered_and_refuses_plain_code(name: str) -> None:
    plain = "import os\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n"
    with pytest.raises(NotApplicable):
        OPERATORS[name](plain)


# sql_format_params --------------------------------------------------------------------------


def test_sql_format_params_inlines_qmark_parameters() -> None:
    out = mutate(
        "sql_format_params",
        """
        def find(conn, email, role):
            return conn.execute(
                "SELECT id FROM users WHERE email = ? AND role = ?", (email.lower(), role)
            ).fetchall()
        """,
    )
    assert "f\"SELECT id FROM users WHERE email = '{email.lower()}' AND role = '{role}'\"" in out
    assert "(email.lower(), role)" not in out


def test_sql_format_params_merges_fstring_parameter_and_keeps_layout() -> None:
    out = mutate(
        "sql_format_params",
        """
        def search(conn, term):
            rows = conn.execute(
                "SELECT title FROM posts WHERE title LIKE ?",
                (f"%{term}%",),
            )
            return rows
        """,
    )
    assert "f\"SELECT title FROM posts WHERE title LIKE '%{term}%'\"," in out
    assert "(f" not in out


def test_sql_format_params_subscript_quotes_do_not_clash() -> None:
    out = mutate("sql_format_params", 'cur.execute("DELETE FROM t WHERE id = ?", (row["id"],))\n')
    assert out == "cur.execute(f\"DELETE FROM t WHERE id = '{row['id']}'\")\n"


def test_sql_format_params_honours_sink_marker() -> None:
    source = textwrap.dedent(
        """
        def f(conn, a, b):
            conn.execute("INSERT INTO t VALUES (?)", (a,))
            conn.execute("SELECT * FROM t WHERE a = ?", (b,))  # sv:sink
        """
    )
    out = mutate("sql_format_params", source)
    assert 'conn.execute("INSERT INTO t VALUES (?)", (a,))' in out
    assert "conn.execute(f\"SELECT * FROM t WHERE a = '{b}'\")" in out


def test_sql_format_params_skips_mismatched_placeholders() -> None:
    with pytest.raises(NotApplicable):
        OPERATORS["sql_format_params"]('conn.execute("SELECT ? , ?", (a,))\n')
    with pytest.raises(NotApplicable):
        OPERATORS["sql_format_params"]("conn.execute(query, (a,))\n")


# shell_string_command -----------------------------------------------------------------------


def test_shell_string_command_inline_call() -> None:
    out = mutate(
        "shell_string_command",
        """
        import subprocess

        def ping(host):
            return subprocess.run(["ping", "-c", "1", host], capture_output=True)
        """,
    )
    assert 'subprocess.run(f"ping -c 1 {host}", shell=True, capture_output=True)' in out


def test_shell_string_command_one_argument_per_line() -> None:
    out = mutate(
        "shell_string_command",
        """
        import subprocess

        def size(path):
            return subprocess.check_output(
                ["du", "-sk", "--", path],
                text=True,
            )
        """,
    )
    assert '        f"du -sk -- {path}",\n        shell=True,\n        text=True,\n' in out


def test_shell_string_command_flips_shell_false_and_handles_from_import() -> None:
    out = mutate(
        "shell_string_command",
        """
        from subprocess import check_call

        def archive(name, files):
            check_call(["tar", "-czf", f"{name}.tgz", files[0]], shell=False)
        """,
    )
    assert 'check_call(f"tar -czf {name}.tgz {files[0]}", shell=True)' in out


def test_shell_string_command_quotes_constant_words() -> None:
    out = mutate("shell_string_command", 'import subprocess\nsubprocess.run(["echo", "a b"])\n')
    assert "subprocess.run(\"echo 'a b'\", shell=True)" in out


def test_shell_string_command_needs_list_form() -> None:
    with pytest.raises(NotApplicable):
        OPERATORS["shell_string_command"]('import subprocess\nsubprocess.run("ls", shell=True)\n')


# drop_escape --------------------------------------------------------------------------------


def test_drop_escape_removes_calls_and_unused_import() -> None:
    out = mutate(
        "drop_escape",
        """
        import html

        def row(name, note):
            return f"<td>{html.escape(name)}</td><td title='{html.escape(note, quote=True)}'/>"
        """,
    )
    assert "return f\"<td>{name}</td><td title='{note}'/>\"" in out
    assert "import html" not in out


def test_drop_escape_nested_alias_and_precedence() -> None:
    out = mutate(
        "drop_escape",
        """
        from html import escape
        import html

        def cell(a, b):
            return escape(a + b) * 2 + html.escape(html.escape(b))
        """,
    )
    assert "return (a + b) * 2 + b" in out


def test_drop_escape_sink_marker_keeps_other_escapes() -> None:
    source = textwrap.dedent(
        """
        import html

        def page(q, title):
            head = html.escape(q)  # sv:sink
            return head + html.escape(title)
        """
    )
    out = strip_markers(mutate("drop_escape", source))
    assert "head = q\n" in out
    assert "html.escape(title)" in out
    assert "import html" in out


# literal_eval_to_eval -----------------------------------------------------------------------


def test_literal_eval_to_eval() -> None:
    out = mutate(
        "literal_eval_to_eval",
        """
        import ast
        import json

        def parse(value):
            return ast.literal_eval(value.strip())
        """,
    )
    assert "return eval(value.strip())" in out
    assert "import ast" not in out
    assert "import json" in out


def test_literal_eval_to_eval_keeps_import_still_used() -> None:
    out = mutate(
        "literal_eval_to_eval",
        "import ast\nfrom ast import literal_eval\n\nx = literal_eval(s)\nt = ast.parse(s)\n",
    )
    assert "x = eval(s)" in out
    assert out.startswith("import ast\n")


# json_to_pickle -----------------------------------------------------------------------------


def test_json_to_pickle_round_trip_code() -> None:
    out = mutate(
        "json_to_pickle",
        """
        import base64
        import json

        def dump(data):
            return base64.b64encode(json.dumps(data, sort_keys=True).encode("utf-8"))

        def load(blob):
            return json.loads(base64.b64decode(blob).decode())
        """,
    )
    assert "base64.b64encode(pickle.dumps(data))" in out
    assert "return pickle.loads(base64.b64decode(blob))" in out
    assert "import base64\nimport pickle\n" in out
    assert "json" not in out


def test_json_to_pickle_adds_import_when_json_still_used() -> None:
    out = mutate(
        "json_to_pickle",
        """
        import json
        from pathlib import Path

        def load(path):
            return json.load(open(path, "rb"))

        ERRORS = (json.JSONDecodeError, OSError)
        """,
    )
    assert 'return pickle.load(open(path, "rb"))' in out
    assert "import json\nfrom pathlib import Path\nimport pickle\n" in out


def test_json_to_pickle_needs_a_load() -> None:
    with pytest.raises(NotApplicable):
        OPERATORS["json_to_pickle"]("import json\n\ntext = json.dumps({})\n")


def test_json_to_pickle_result_really_round_trips() -> None:
    out = mutate(
        "json_to_pickle",
        """
        import json

        def dump(data):
            return json.dumps(data).encode("utf-8")

        def load(raw):
            return json.loads(raw)
        """,
    )
    namespace: dict = {}
    exec(compile(out, "<mutated>", "exec"), namespace)  # trusted test snippet
    assert namespace["load"](namespace["dump"]({"a": [1, 2]})) == {"a": [1, 2]}
    assert namespace["dump"]({}).startswith(b"\x80")


# inline_secret ------------------------------------------------------------------------------


def test_inline_secret_replaces_only_credentials() -> None:
    out = mutate(
        "inline_secret",
        """
        import os

        HOST = os.environ.get("DB_HOST", "localhost")
        PASSWORD = os.environ["DB_PASSWORD"]
        TOKEN = os.getenv("GITHUB_TOKEN", "")
        KEY = os.environ.get("STRIPE_API_KEY")
        AUTHOR = os.getenv("GIT_AUTHOR_NAME")
        """,
    )
    assert 'HOST = os.environ.get("DB_HOST", "localhost")' in out
    assert f'PASSWORD = "{fake_secret("DB_PASSWORD")}"' in out
    assert f'TOKEN = "{fake_secret("GITHUB_TOKEN")}"' in out
    assert f'KEY = "{fake_secret("STRIPE_API_KEY")}"' in out
    assert 'AUTHOR = os.getenv("GIT_AUTHOR_NAME")' in out


def test_inline_secret_drops_unused_os_import() -> None:
    out = mutate("inline_secret", 'import os\n\nSECRET_KEY = os.environ["APP_SECRET_KEY"]\n')
    assert out == f'\nSECRET_KEY = "{fake_secret("APP_SECRET_KEY")}"\n'


def test_inline_secret_ignores_non_secret_variables() -> None:
    with pytest.raises(NotApplicable):
        OPERATORS["inline_secret"]('import os\nHOME = os.environ["HOME"]\n')


def test_fake_secret_is_deterministic_and_plausible() -> None:
    assert fake_secret("DB_PASSWORD") == fake_secret("DB_PASSWORD")
    assert fake_secret("DB_PASSWORD") != fake_secret("SMTP_PASSWORD")
    assert fake_secret("DB_PASSWORD").endswith("!")
    assert fake_secret("BILLING_API_TOKEN").startswith("tok_")
    assert fake_secret("STRIPE_API_KEY").startswith("ak_live_")
    assert len(fake_secret("APP_SECRET")) == 40


# the seeds built on these operators ---------------------------------------------------------


def test_seeds_using_these_operators_build() -> None:
    from sv_env_code_vulnerability.library import all_seeds
    from sv_env_code_vulnerability.mutations import apply_operators

    seeds = [s for s in all_seeds() if set(s.mutations) & set(NEW_OPERATORS)]
    assert len(seeds) >= 14
    for seed in seeds:
        vulnerable = strip_markers(apply_operators(seed.source, seed.mutations))
        assert vulnerable != strip_markers(seed.source), seed.seed_id
        assert "sv:" not in vulnerable, seed.seed_id
        ast.parse(vulnerable)
