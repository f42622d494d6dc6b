"""Start the HTTP server with the settings from the environment."""

from http.server import HTTPServer, SimpleHTTPRequestHandler

from app.config import load_config


def make_server(config=None):
    """An HTTPServer bound to the configured host and port (not started)."""
    config = config or load_config()
    return HTTPServer((config.host, config.port), SimpleHTTPRequestHandler, bind_and_activate=False)
