"""The CSA bridge: plays a USI engine on a CSA-protocol server such as floodgate.

`protocol` parses the server's messages, `clock` mirrors its clocks, `config` reads
the bridge's settings, `game` keeps one game's state and record, `bridge` runs it.
"""
from usi_engine.csa.bridge import Bridge, BridgeConfig, ConfigError, build_config

__all__ = ["Bridge", "BridgeConfig", "ConfigError", "build_config"]
