def add(a, b):
    # add
    return a + b
