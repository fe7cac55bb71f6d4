"""Model access: every model, remote or built-in, is reached through one OpenAI-compatible client."""
