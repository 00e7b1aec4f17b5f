"""Settings for the service."""

import os

TIMEOUT = 30
RETRIES = 3


def load():
    """Read the settings from the environment."""
    timeout = int(os.environ.get("TIMEOUT", TIMEOUT))
    retries = int(os.environ.get("RETRIES", RETRIES))
    return {"timeout": timeout, "retries": retries}
