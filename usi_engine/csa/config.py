"""Settings of the CSA bridge (``usi-engine csa``): the command line, a TOML file and
the password's environment variable, merged into one :class:`BridgeConfig`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from usi_engine.usi.client import split_command

__all__ = ["BridgeConfig", "ConfigError", "build_config", "load_config_file", "parse_option",
           "DEFAULT_PASSWORD_ENV"]

#: Environment variable read for the password when none is given otherwise.
DEFAULT_PASSWORD_ENV = "CSA_PASSWORD"


class ConfigError(ValueError):
    """A setting the bridge cannot run with."""


@dataclass
class BridgeConfig:
    """Everything the bridge needs; the CLI and the TOML file fill it."""
    host: str = ""
    port: int = 4081
    id: str = ""
    password: str = field(default="", repr=False)
    game: str | None = None
    games: int = 1
    keep_alive: float = 30.0
    margin_ms: int = 1000
    ponder: bool = False
    increment_as_byoyomi: bool = False
    engine: list[str] | None = None
    options: list[tuple[str, str]] = field(default_factory=list)
    log_dir: str = "csa-logs"
    echo: bool = True
    connect_timeout_s: float = 15.0
    login_timeout_s: float = 60.0
    engine_timeout_s: float = 60.0
    backoff_initial_s: float = 5.0
    backoff_max_s: float = 300.0
    max_failures: int = 8

    def validate(self) -> None:
        """ConfigError naming the first bad setting."""
        if not self.host:
            raise ConfigError("no server: give --host (or host in the config file)")
        if not self.id:
            raise ConfigError("no login name: give --id (or id in the config file)")
        if not self.password:
            raise ConfigError(f"no password: give --password, password in the config file "
                              f"or the {DEFAULT_PASSWORD_ENV} environment variable")
        if any(c.isspace() for c in self.id + self.password + (self.game or "")):
            raise ConfigError("the login name, password and game name cannot contain spaces")
        if self.max_failures < 0:
            raise ConfigError(f"retries must be 0 or more, not {self.max_failures}")
        if not 0 < self.port < 65536:
            raise ConfigError(f"port {self.port} is not 1..65535")
        if self.games < 1:
            raise ConfigError("--games must be at least 1")
        if self.margin_ms < 0 or self.keep_alive < 0:
            raise ConfigError("--margin-ms and --keep-alive cannot be negative")

    def login_line(self, masked: bool = False) -> str:
        """``LOGIN id [game,]password`` (password masked for the log)."""
        secret = "*****" if masked else self.password
        return f"LOGIN {self.id} " + (f"{self.game},{secret}" if self.game else secret)


def load_config_file(path: str) -> dict[str, Any]:
    """Read a TOML config file (standard library ``tomllib``: Python 3.11+).

    Keys: host, port, id, password, password_env, game, games, keep_alive, margin_ms,
    ponder, increment_as_byoyomi, engine, options (a table ``{Name = value}`` or a
    list of ``"Name=value"``), log_dir. ConfigError for an unreadable file or unknown keys.
    """
    try:
        import tomllib
    except ImportError:  # Python 3.10
        raise ConfigError("--config needs Python 3.11 or newer (tomllib); give the "
                          "settings on the command line instead") from None
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    known = {"host", "port", "id", "password", "password_env", "game", "games",
             "keep_alive", "margin_ms", "ponder", "increment_as_byoyomi", "engine", "options",
             "log_dir"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown keys {', '.join(unknown)}")
    return data


def parse_option(text: str) -> tuple[str, str]:
    """``Name=value`` -> (name, value). ConfigError without ``=``."""
    if "=" not in text or not text.split("=", 1)[0].strip():
        raise ConfigError(f"option {text!r} is not NAME=VALUE")
    name, value = text.split("=", 1)
    return name.strip(), value.strip()


def build_config(args: Any, environ: Mapping[str, str] | None = None) -> BridgeConfig:
    """A :class:`BridgeConfig` from parsed CLI arguments over the config file (when
    ``args.config``) over defaults; the password from ``--password``, the file, or
    the environment variable (``password_env``, default ``CSA_PASSWORD``)."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    data: dict[str, Any] = load_config_file(args.config) if getattr(args, "config", None) else {}
    config = BridgeConfig()

    def pick(name: str, cli_value: Any, kind: type) -> Any:
        value = cli_value if cli_value is not None else data.get(name)
        if value is None:
            return getattr(config, name)
        if kind is bool:
            if not isinstance(value, bool):
                raise ConfigError(f"{name} must be true or false")
            return value
        try:
            return kind(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{name} must be a {kind.__name__}, not {value!r}") from None

    config.host = pick("host", args.host, str)
    config.port = pick("port", args.port, int)
    config.id = pick("id", args.id, str)
    config.game = pick("game", args.game, str) or None
    config.games = pick("games", args.games, int)
    config.keep_alive = pick("keep_alive", args.keep_alive, float)
    config.margin_ms = pick("margin_ms", args.margin_ms, int)
    config.ponder = pick("ponder", True if args.ponder else None, bool)
    config.increment_as_byoyomi = pick(
        "increment_as_byoyomi", True if getattr(args, "increment_as_byoyomi", None) else None, bool)
    config.log_dir = pick("log_dir", args.log_dir, str)
    retries = getattr(args, "retries", None)
    retries = retries if retries is not None else data.get("retries")
    config.max_failures = config.max_failures if retries is None else pick("retries", retries, int)
    engine = args.engine if args.engine is not None else data.get("engine")
    if engine is not None:
        config.engine = split_command(engine)
        if not config.engine:
            raise ConfigError("--engine is empty")
    options: list[tuple[str, str]] = []
    file_options = data.get("options", {})
    if isinstance(file_options, dict):
        options += [(str(k), _option_value(v)) for k, v in file_options.items()]
    elif isinstance(file_options, list):
        options += [parse_option(str(o)) for o in file_options]
    else:
        raise ConfigError("options must be a table or a list of \"NAME=VALUE\"")
    options += [parse_option(o) for o in (args.option or [])]
    config.options = options
    password = args.password if args.password is not None else data.get("password")
    env_name = getattr(args, "password_env", None) or data.get("password_env") or DEFAULT_PASSWORD_ENV
    if password is None:
        password = env.get(env_name, "")
    config.password = str(password)
    config.validate()
    return config


def _option_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
