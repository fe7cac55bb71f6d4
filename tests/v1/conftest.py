"""verifiers v1 smoke tests: run in .venv-v1 (verifiers 0.4) by `make test-v1`, and in the
main venv too where verifiers 0.3.x's own `verifiers.v1` is importable.

`make test-v1` passes `--confcutdir tests/v1`, so the parent conftest (which imports the
harness, not installed beside verifiers 0.4) is not loaded there.
"""

import os

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
