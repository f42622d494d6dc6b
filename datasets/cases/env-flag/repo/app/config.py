"""Application settings, read from the environment (see .env.example)."""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    host: str
    port: int
    log_level: str


def load_config(environ=None):
    """Build a Config from environment variables; environ defaults to os.environ."""
    env = os.environ if environ is None else environ
    return Config(
        host=env.get("APP_HOST", "127.0.0.1"),
        port=int(env.get("APP_PORT", "8000")),
        log_level=env.get("APP_LOG_LEVEL", "info").lower(),
    )
