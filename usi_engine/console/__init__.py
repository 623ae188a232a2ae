"""What the long commands write to a terminal: progress lines kept in place on stderr
(:mod:`~usi_engine.console.progress`). Imports nothing else of the package."""
