"""Settings for the service."""

import os

TIMEOUT = 60
RETRIES = 5
BACKOFF = 1.5


def load():
    """Read the settings from the environment."""
    timeout = int(os.environ.get("TIMEOUT", TIMEOUT))
    retries = int(os.environ.get("RETRIES", RETRIES))
    backoff = float(os.environ.get("BACKOFF", BACKOFF))
    return {"timeout": timeout, "retries": retries, "backoff": backoff}
