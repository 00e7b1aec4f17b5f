def helper_4(x):
    return x + 4


def helper_5b(x):
    return x + 5.0
