#!/usr/bin/env python
"""Custom E4 sweeps: every argument of `sv eval` is accepted (see `--help`).

Example — the baselines and a vLLM-served model on the synthetic test split, with the URL tool:
    python scripts/eval_phishing_detection.py -n 200 --env-arg include_tools=true \\
        --models heuristic,always-legitimate,Qwen/Qwen2.5-7B-Instruct@http://localhost:8000/v1
Real emails (Nazario phishing vs Enron ham), rendered with the fields both corpora share:
    python scripts/eval_phishing_detection.py -n 425 --env-arg source=realdata \\
        --env-arg path=../shared/realdata/E4_phishing --models heuristic
"""

import sys

from security_verifiers.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "eval", "e4", *sys.argv[1:]]
    main()
