"""``atout serve``: a web card table for any rule file (install with ``pip install "atout[web]"``).

:mod:`.tables` holds the matches (no web code), :mod:`.app` the Starlette application, :mod:`.verdicts` the
background ``atout verify`` runs, :mod:`.highlight` the rule files' highlighting; the pages' JavaScript and CSS
are under ``static/`` and their templates under ``templates/`` (package data).  docs/web.md describes it.
"""


def missing_extra() -> str | None:
    """The name of a package of the ``[web]`` extra that is not installed, or None when all are."""
    import importlib.util
    for mod, pkg in (("starlette", "starlette"), ("uvicorn", "uvicorn"), ("jinja2", "jinja2"),
                     ("websockets", "uvicorn[standard]")):
        if importlib.util.find_spec(mod) is None:
            return pkg
    return None
