def last(xs):
    return xs[len(xs) - 1]
