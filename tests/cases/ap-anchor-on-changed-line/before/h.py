def helper_6(x):
    """Helper number 6."""
    if x is None:
        return None
    return x + 6


def helper_7(x):
    """Helper number 7."""
    if x is None:
        return None
    return x + 7
