#!/usr/bin/env python
"""Custom E2 sweeps: every argument of `sv eval` is accepted (see `--help`).

Example — baselines and a vLLM-served model, with and without tools:
    for tools in false true; do
      python scripts/eval_config_verification.py -n 64 --env-arg include_tools=$tools \\
          --models tool-oracle,tool-oracle-fix,Qwen/Qwen2.5-7B-Instruct@http://localhost:8000/v1
    done
"""

import sys

from security_verifiers.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "eval", "e2", *sys.argv[1:]]
    main()
