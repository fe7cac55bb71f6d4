"""Model access: every model, remote or built-in, goes through one OpenAI-compatible client."""
