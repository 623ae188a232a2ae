"""Type stub of the table memory (usi_engine/core/tt.pyx)."""

class HashMemory:
    """A zeroed, page-touched block of `megabytes` MB (MemoryError if refused)."""
    size: int
    last_writer: int
    megabytes: int
    def __init__(self, megabytes: int) -> None: ...
