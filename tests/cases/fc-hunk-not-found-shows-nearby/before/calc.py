def add(a, b):
    return a + b


def sub_(a, b):
    return a - b
