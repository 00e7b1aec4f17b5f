def helper_4(x):
    return x + 4


def helper_5(x):
    return x + 5
