"""The evaluation harness: run models on environments, write reproducible artifacts."""
