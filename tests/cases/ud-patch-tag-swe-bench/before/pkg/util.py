def parse(value):
    if value is None:
        return None
    return int(value)


def clamp(x, lo, hi):
    return max(lo, min(x, hi))
