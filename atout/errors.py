"""Errors shared by the command line and the modules it calls."""


class UsageError(Exception):
    """Bad command-line input: printed as 'atout: error: ...' with exit status 2."""
