"""SFT -> RL fine-tuning recipes (`sv train`): TRL + PEFT on the environments' own rewards."""
