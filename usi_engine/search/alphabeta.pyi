"""Type stub of the tree search's Python API: the table of its parameters."""

#: (USI option name, default, min, max) of each of the search's margins and reductions.
TUNABLES: tuple[tuple[str, int, int, int], ...]

def parameter_index(name: str, value: int) -> int:
    """The index of a parameter after a range check (KeyError, ValueError)."""
