"""Model profiles, prompt strategies, OpenAI-compatible client, run queue, cache and cost (no Qt)."""
