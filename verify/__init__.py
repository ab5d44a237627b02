"""The Atout verifier (see verify/cli.py)."""
