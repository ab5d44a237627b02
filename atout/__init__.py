"""Atout: card games written as declarative rules, compiled to state machines, verified, played, exported.

    >>> import atout
    >>> game = atout.load("rules/ecarte.atout")
    >>> state = game.new_initial_state()
    >>> state.is_chance_node()
    True
"""
from atout.compiler import CompileError, compile_file
from atout.engine import CHANCE, TERMINAL, Game, IllegalActionError, RuleError, State, load

__version__ = "0.1.0"
__all__ = ["load", "compile_file", "CompileError", "Game", "State", "CHANCE", "TERMINAL", "IllegalActionError",
           "RuleError"]
