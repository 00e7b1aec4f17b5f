def last(xs):
    return xs[len(xs) - 2]
