def helper_6(x):
    """Helper number 6."""
    if x is None:
        return None
    return x + 6


def helper_7(x, default=None):
    """Helper number 7, with a default."""
    if x is None:
        return default
    return x + 7
