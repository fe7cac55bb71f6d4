"""Dataset building, validation, statistics and synthetic data (`sv data`, `sv synth`)."""
