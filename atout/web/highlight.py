"""Syntax highlighting of rule files for the game page: a Pygments lexer for the Atout language.

Pygments comes with ``rich`` (a dependency of Atout).  The keywords are the grammar's (``grammar/atout.lark``).
"""
from __future__ import annotations

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import RegexLexer, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text

KEYWORDS = ("action", "actor", "after", "by", "case", "deal", "deck", "def", "do", "elif", "else", "end",
            "ends", "enum", "extends", "first", "follow", "for", "from", "game", "gather", "goto", "head", "if",
            "in", "lead", "match", "move", "next", "of", "option", "order", "override", "per", "phase", "players",
            "property", "ranks", "remove", "returns", "reveal", "row", "score", "shuffle", "sides", "skip",
            "start", "starting", "suits", "table", "then", "to", "trick", "trump", "var", "when", "where", "zone",
            "colors", "bowers", "dummy")
WORDS = ("and", "or", "not", "all", "any", "count", "sum")
TYPES = ("bool", "card", "cards", "int", "player", "suit", "side", "public", "private", "hidden", "home")
PROPERTIES = ("can_end", "can_force", "complete", "conserves", "deal_bound", "invariant", "reach", "reachable",
              "terminates")
CONSTANTS = ("true", "false", "none", "dealer", "leader", "random")


class AtoutLexer(RegexLexer):
    """Rule files (``*.atout``)."""
    name = "Atout"
    aliases = ["atout"]
    filenames = ["*.atout"]
    tokens = {
        "root": [
            (r"#.*$", Comment.Single),
            (r'"(\\\\|\\"|[^"])*"', String.Double),
            (words(KEYWORDS, suffix=r"\b"), Keyword),
            (words(PROPERTIES, suffix=r"\b"), Keyword.Reserved),
            (words(TYPES, suffix=r"\b"), Keyword.Type),
            (words(WORDS, suffix=r"\b"), Operator.Word),
            (words(CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (r"\d+", Number.Integer),
            (r"[A-Za-z_][A-Za-z_0-9]*", Name),
            (r"==|!=|<=|>=|\+=|-=|\.\.|[-+*/%<>=]", Operator),
            (r"[{}()\[\],:;.]", Punctuation),
            (r"\s+", Text),
            (r".", Text),
        ]
    }


FORMATTER = HtmlFormatter(linenos="table", cssclass="source", anchorlinenos=True, lineanchors="L")


def rules_html(source: str) -> str:
    """The rule file as highlighted HTML (line numbers linked as ``#L-N``; the text is escaped)."""
    return highlight(source, AtoutLexer(), FORMATTER)


def rules_css() -> str:
    """The style sheet of :func:`rules_html`."""
    return FORMATTER.get_style_defs(".source")
