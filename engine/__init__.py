"""The Atout engine: play a compiled game (OpenSpiel-shaped API), bots, simulation, records."""
from .evaluate import RuleError
from .game import CHANCE, TERMINAL, Game, load
from .state import IllegalActionError, State

__all__ = ["CHANCE", "TERMINAL", "Game", "State", "load", "RuleError", "IllegalActionError"]
