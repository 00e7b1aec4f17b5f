def parse(value):
    if value is None or value == "":
        return None
    return int(value.strip())


def clamp(x, lo, hi):
    return max(lo, min(x, hi))
