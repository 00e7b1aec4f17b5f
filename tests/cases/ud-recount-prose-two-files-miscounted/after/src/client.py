import time

from .config import load


def fetch(session, url):
    settings = load()
    for attempt in range(settings["retries"]):
        try:
            return session.get(url, timeout=settings["timeout"])
        except TimeoutError:
            time.sleep(settings["backoff"] ** attempt)
            continue
    raise TimeoutError(url)
