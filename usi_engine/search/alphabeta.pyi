"""Type stub of the tree search's Python API: the tuned search parameters."""

#: (USI option name, default, min, max) of each tuned search parameter.
TUNABLES: tuple[tuple[str, int, int, int], ...]

def set_search_parameter(name: str, value: int) -> None: ...
def search_parameters() -> dict[str, int]: ...
