def a():
    x = 1
    return x


def b():
    y = 2
    return y
