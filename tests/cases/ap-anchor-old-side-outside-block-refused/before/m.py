def first():
    a = 1
    return a


def second():
    b = 2
    return b
